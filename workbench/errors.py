"""Errors a user can act on. Each message says what happened and what to do; the CLI prints
it as one line and exits 2, the UI shows it as is. Anything else is a bug.

Where the remedy depends on the front end (a CLI flag, a widget on a page), the message says
what happened and the error carries fields; each front end adds its own remedy
(cli.worded, the page)."""


class WorkbenchError(Exception):
    """Base for every problem caused by input, configuration or a remote service."""


# PDF input
class PdfError(WorkbenchError):
    pass


class NotAPdfError(PdfError):
    pass


class EmptyFileError(PdfError):
    pass


class PasswordRequiredError(PdfError):
    pass


class WrongPasswordError(PdfError):
    pass


class DamagedPdfError(PdfError):
    pass


class TooLargeError(PdfError):
    pass


class TooManyPagesError(PdfError):
    pass


class TooMuchTextError(PdfError):
    """A page or the whole document holds more characters or words than Settings allows."""


class RenderError(PdfError):
    """MuPDF could not draw a page image (a limit it enforces, damaged content)."""


# Everything else
class ConfigError(WorkbenchError):
    pass


class BackendError(WorkbenchError):
    """A backend stage failed visibly (HTTP error, timeout, malformed output after retry)."""

    def __init__(self, message: str, raw: str | None = None):
        super().__init__(message)
        self.raw = raw


class NotFoundError(WorkbenchError):
    pass


class HashMismatchError(WorkbenchError):
    pass


class RecordProblemError(HashMismatchError):
    """The review record of a run was forged or erased (store/chain.py): exports stop, as for a
    drifted quote, and an erased record takes no more events."""

    def __init__(self, message: str, problems: list[str] | None = None):
        super().__init__(message)
        self.problems = problems or []


class ReviewerRequiredError(WorkbenchError):
    """A review label or a forced export without the reviewer's name."""


class ExportBlockedError(WorkbenchError):
    """The safety gate blocked an answer format (`reasons`: one finding each), or a forced export
    came without a reason (`needs_reason`)."""

    def __init__(self, message: str, reasons: list[str], *, needs_reason: bool = False):
        super().__init__(message)
        self.reasons = reasons
        self.needs_reason = needs_reason


class SignInError(WorkbenchError):
    """Sign-in refused, or an action that needs a signed-in reviewer was attempted without one."""


class ForbiddenError(WorkbenchError):
    """The signed-in reviewer's role does not allow the action."""

    def __init__(self, message: str, *, needs: str = "", has: str = ""):
        super().__init__(message)
        self.needs, self.has = needs, has
