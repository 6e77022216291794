"""Pages named as a reader names them: runs, not every number."""

from workbench.text.ranges import page_ranges


def test_runs_of_pages_are_joined_and_single_pages_stand_alone():
    assert page_ranges([2, 3, 4, 5, 9, 11, 12]) == "2-5, 9, 11-12"


def test_order_and_repeats_do_not_matter_and_no_pages_is_empty():
    assert page_ranges([7, 1, 2, 2, 3]) == "1-3, 7"
    assert page_ranges([]) == ""
