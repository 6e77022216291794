"""Sign-in for the app when Settings.sign_in is on: a local-account form, or Streamlit's own
st.login (OIDC) when a provider is configured. The identity (with its session proof) lives in this
browser session only; the service re-reads the account on every action (workbench.auth), and each
rerun checks the session is still good, so a disabled, demoted or re-passworded user is signed out
at once. Failed sign-ins are throttled per name and per browser address (the service says how long)."""

from __future__ import annotations

import streamlit as st

from workbench.models import Identity
from workbench.ui import safe, state


def _client() -> str:
    """The browser's address as the app sees it (a reverse proxy's, behind one), for the throttle."""
    try:
        return st.context.ip_address or "browser"
    except Exception:  # noqa: BLE001 - older Streamlit, or no request context
        return "browser"


def current(wb, *, again: bool = True) -> Identity | None:
    """The signed-in identity, if its session is still good: the session's (local account), or
    the identity provider's (verified e-mail only)."""
    from workbench.errors import SignInError

    provider = wb.settings.sign_in_provider
    if provider:
        if not getattr(st.user, "is_logged_in", False):
            st.session_state.pop(state.IDENTITY, None)
            return None
        if state.IDENTITY not in st.session_state:
            try:
                st.session_state[state.IDENTITY] = wb.oidc_identity(st.user.to_dict()).model_dump()
            except SignInError as exc:
                st.session_state["sign_in_error"] = str(exc)
                return None
    ident = state.identity()
    if ident is None:
        return None
    try:
        return wb.identity(ident)
    except SignInError as exc:
        st.session_state.pop(state.IDENTITY, None)
        if provider and again:  # the provider's sign-in stands: take the account as it is now
            return current(wb, again=False)
        st.session_state["sign_in_error"] = str(exc)
        return None


def _submit(wb) -> None:
    try:
        ident = wb.sign_in(st.session_state.get("sign_in_name", ""), st.session_state.get("sign_in_password", ""),
                           client=_client())
    except Exception as exc:  # noqa: BLE001 - shown under the form
        st.session_state["sign_in_error"] = str(exc)
        return
    st.session_state.pop("sign_in_error", None)
    st.session_state["sign_in_password"] = ""
    st.session_state[state.IDENTITY] = ident.model_dump()


def _sign_out(wb) -> None:
    st.session_state.pop(state.IDENTITY, None)
    if wb.settings.sign_in_provider:
        st.logout()


def sidebar(wb, ident: Identity) -> None:
    st.caption(f":material/person: Signed in as **{safe.text(ident.name)}** ({ident.role})")
    st.button("Sign out", on_click=_sign_out, args=(wb,), icon=":material/logout:")


def form(wb) -> None:
    """The sign-in page shown instead of the app until someone signs in."""
    st.title("Sign in")
    provider = wb.settings.sign_in_provider
    if provider:
        st.button(f"Sign in with {safe.text(provider)}", on_click=st.login, args=(provider,), type="primary")
        if st.session_state.get("sign_in_error"):
            st.error(safe.text(st.session_state["sign_in_error"]))
        return
    with st.form("sign_in"):
        st.text_input("Name", key="sign_in_name")
        st.text_input("Password", type="password", key="sign_in_password")
        st.form_submit_button("Sign in", type="primary", on_click=_submit, args=(wb,))
    if st.session_state.get("sign_in_error"):
        st.error(safe.text(st.session_state["sign_in_error"]))
    st.caption("Accounts are made by an admin with `workbench user add NAME --role reviewer --password-stdin "
               "--as ADMIN`.")
