# Copied by acp-codegen from templates/python/conformance/auth.py. Do not edit here:
# edit the source, then run `make generate`.

"""Authentication (layer: case family), when the `initialize` answer lists `authMethods`: the
agent's login request (v1 `authenticate`, v2 `auth/login`) with an advertised method whose type
the agent handles itself is answered (a result, or an error such as a login that needs a user;
never -32601), v2's `auth/logout` is served, and a method id never advertised is an error.
An agent that lists no method makes the cases skips.
"""

from __future__ import annotations

from typing import Any

from .behaviour import request_said, said, v1, worded_case
from .cases import Case, Check, Context, Outcome, describe, error_code, failed, passed, skipped
from .data import EditionData
from .steps import initialize, params

LOGIN = {
    1: (
        "AuthenticateRequest",
        "Authenticates the client using the specified authentication method. Called when the "
        "agent requires authentication before allowing session creation. The client provides "
        "an authentication method ID that was advertised during initialization and whose type "
        "defines the `authenticate` flow.",
    ),
    2: (
        "InitializeResponse/properties/authMethods",
        "Supplying one or more methods means the Agent MUST support both `auth/login` and "
        "`auth/logout`.",
    ),
}
UNKNOWN = (
    "AuthenticateRequest/properties/methodId",
    "The ID of the authentication method to use. Must be one of the methods advertised in the "
    "initialize response.",
)
NO_SUCH_METHOD = "conformance-no-such-method"


def cases(edition: EditionData) -> list[Case]:
    if edition.protocol_version not in LOGIN:
        return []
    login = "authenticate" if v1(edition) else "auth/login"
    if edition.method(login) is None:
        return []
    pointer, text = LOGIN[edition.protocol_version]
    quote = request_said(edition, pointer, text) if v1(edition) else said(edition, pointer, text)
    unknown = said(
        edition, UNKNOWN[0] if v1(edition) else "LoginAuthRequest/properties/methodId", UNKNOWN[1]
    )
    found = [
        worded_case(
            "auth.login_answered",
            f"advertised in authMethods, {login} with an advertised "
            "method is answered (not -32601)",
            quote,
            _login(login),
        ),
        worded_case(
            "auth.unknown_method_is_an_error",
            f"{login} with a method id never advertised is " "answered with an error",
            unknown,
            _unknown(login),
        ),
    ]
    if not v1(edition) and edition.method("auth/logout") is not None:
        found.append(
            worded_case(
                "auth.logout_served",
                "advertised in authMethods, auth/logout is " "answered (not -32601)",
                quote,
                _logout,
            )
        )
    return found


def agent_methods(ctx: Context, result: dict[str, Any]) -> list[Any]:
    """The ids of the advertised methods the agent handles itself (type `agent`; v1: also no
    type)."""
    key = "id" if v1(ctx.edition) else "methodId"
    found = []
    for method in result.get("authMethods") or []:
        if type(method) is not dict:
            continue
        kind = method.get("type", "agent" if v1(ctx.edition) else None)
        if kind == "agent" and method.get(key) is not None:
            found.append(method[key])
    return found


async def _advertised(ctx: Context) -> tuple[dict[str, Any], list[Any]]:
    result = await initialize(ctx)
    if not result.get("authMethods"):
        return result, []
    return result, agent_methods(ctx, result)


def _login(method: str) -> Check:
    async def check(ctx: Context) -> Outcome:
        result, ids = await _advertised(ctx)
        if not result.get("authMethods"):
            return skipped("the agent advertises no authMethods")
        if not ids:
            return skipped("no advertised method is one the agent handles itself (type agent)")
        answer = await ctx.call(method, params(ctx, method, {"methodId": ids[0]}))
        if error_code(answer) == -32601:
            return failed(f"{method} with the advertised {ids[0]!r} was {describe(answer)}")
        return passed(f"{method} {ids[0]!r} answered with {describe(answer)}")

    return check


def _unknown(method: str) -> Check:
    async def check(ctx: Context) -> Outcome:
        result, _ = await _advertised(ctx)
        if not result.get("authMethods"):
            return skipped("the agent advertises no authMethods")
        answer = await ctx.call(method, params(ctx, method, {"methodId": NO_SUCH_METHOD}))
        if error_code(answer) is None:
            return failed(f"{method} with the unknown {NO_SUCH_METHOD!r} was {describe(answer)}")
        return passed(f"answered with {describe(answer)}")

    return check


async def _logout(ctx: Context) -> Outcome:
    result, _ = await _advertised(ctx)
    if not result.get("authMethods"):
        return skipped("the agent advertises no authMethods")
    answer = await ctx.call("auth/logout", params(ctx, "auth/logout", {}))
    if error_code(answer) == -32601:
        return failed(f"auth/logout was {describe(answer)}")
    return passed(f"answered with {describe(answer)}")
