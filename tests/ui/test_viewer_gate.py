"""The render gate's bookkeeping: slots are handed over in order, and a request that goes away
(a closed tab, a scrolled-past page) gives back its place in line or its slot."""

from __future__ import annotations

import asyncio

import pytest

from workbench.ui.viewer.gate import GateBusy, RenderGate


def test_a_slot_passes_to_the_next_in_line_and_a_request_that_leaves_gives_its_place_back():
    gate = RenderGate(concurrency=1, queue=2, per_client=10)
    order: list[str] = []

    async def use(name: str, hold: asyncio.Event):
        async with gate.slot(name):
            order.append(name)
            await hold.wait()

    async def scenario():
        holds = {n: asyncio.Event() for n in "abc"}
        first = asyncio.ensure_future(use("a", holds["a"]))
        await asyncio.sleep(0)
        leaver = asyncio.ensure_future(use("b", holds["b"]))
        last = asyncio.ensure_future(use("c", holds["c"]))
        await asyncio.sleep(0)
        with pytest.raises(GateBusy) as full:  # one running, two waiting: no room
            async with gate.slot("d"):
                pass
        assert full.value.status == 503
        leaver.cancel()  # b goes away while waiting
        await asyncio.sleep(0)
        holds["a"].set()
        await first
        for _ in range(20):
            await asyncio.sleep(0)
        assert order == ["a", "c"]  # b's place went to c
        holds["c"].set()
        await last
        assert gate._running == 0 and not gate._waiting and not gate._held

    asyncio.run(scenario())


def test_a_request_cancelled_just_as_its_slot_arrives_passes_the_slot_on():
    gate = RenderGate(concurrency=1, queue=5, per_client=10)

    async def scenario():
        hold = asyncio.Event()

        async def use():
            async with gate.slot("x"):
                await hold.wait()

        first = asyncio.ensure_future(use())
        await asyncio.sleep(0)
        second = asyncio.ensure_future(use())
        third = asyncio.ensure_future(use())
        await asyncio.sleep(0)
        hold.set()
        await first  # the slot is on its way to `second` ...
        second.cancel()  # ... which leaves before it arrives
        await asyncio.gather(second, third, return_exceptions=True)
        assert third.done() and not third.cancelled()
        assert gate._running == 0 and not gate._waiting and not gate._held

    asyncio.run(scenario())


def test_one_client_beyond_its_share_is_told_429_while_another_waits_its_turn():
    gate = RenderGate(concurrency=1, queue=5, per_client=1)

    async def scenario():
        async with gate.slot("x"):
            with pytest.raises(GateBusy) as busy:
                async with gate.slot("x"):
                    pass
            assert busy.value.status == 429
            other = asyncio.ensure_future(_enter(gate, "y"))
            await asyncio.sleep(0)
            assert len(gate._waiting) == 1  # queued, not refused
        await other

    asyncio.run(scenario())


async def _enter(gate: RenderGate, client: str) -> None:
    async with gate.slot(client):
        pass
