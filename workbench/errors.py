"""Errors a user can act on. Each message says what happened and what to do; the CLI prints
it as one line and exits 2, the UI shows it as is. Anything else is a bug."""


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


class ExportBlockedError(WorkbenchError):
    def __init__(self, message: str, reasons: list[str]):
        super().__init__(message)
        self.reasons = reasons
