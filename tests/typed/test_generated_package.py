"""The vendorable package: names, method tables, stability marks, import cost."""

from __future__ import annotations

import importlib
import json
import subprocess
import sys
from types import ModuleType
from typing import Any

import pytest
from acp_protocol import SCHEMA_ORIGIN
from acp_protocol.v1 import methods, models
from acp_protocol.v1.unstable import methods as unstable_methods
from acp_protocol.v1.unstable import models as unstable_models
from pydantic import TypeAdapter

from tests.paths import ROOT, STABLE_SCHEMA, UNSTABLE_SCHEMA

EDITIONS = [(STABLE_SCHEMA, models, methods), (UNSTABLE_SCHEMA, unstable_models, unstable_methods)]


def _defs(relative: str) -> dict[str, dict[str, object]]:
    defs: dict[str, dict[str, object]] = json.loads((ROOT / relative).read_text())["$defs"]
    return defs


@pytest.mark.parametrize(("schema", "module", "table"), EDITIONS, ids=["stable", "unstable"])
def test_every_defs_name_imports_under_its_own_name(
    schema: str, module: ModuleType, table: ModuleType
) -> None:
    missing = [name for name in _defs(schema) if not hasattr(module, name)]
    assert missing == []


@pytest.mark.parametrize(("schema", "module", "table"), EDITIONS, ids=["stable", "unstable"])
def test_method_table_has_one_entry_per_x_method_def(
    schema: str, module: ModuleType, table: ModuleType
) -> None:
    """Built from `x-method`/`x-side`: every annotated params type is routed, with its side."""
    expected = {
        (str(d["x-method"]), name, str(d["x-side"]))
        for name, d in _defs(schema).items()
        if "x-method" in d and not name.endswith("Response")
    }
    actual = {(s.name, s.params_type.__name__, s.side) for s in table.METHODS}
    assert actual == expected


def test_request_entries_carry_their_result_type() -> None:
    spec = methods.REQUESTS["session/prompt"]
    assert (spec.params_type, spec.result_type) == (models.PromptRequest, models.PromptResponse)
    assert (spec.side, spec.kind, spec.handler_name) == ("agent", "request", "session_prompt")


def test_protocol_level_cancel_request_is_in_the_table() -> None:
    spec = methods.NOTIFICATIONS["$/cancel_request"]
    assert (spec.side, spec.params_type, spec.handler_name) == (
        "protocol",
        models.CancelRequestNotification,
        "cancel_request",
    )


def test_methods_only_in_the_unstable_schema_are_marked_unstable() -> None:
    stable_names = {spec.name for spec in methods.METHODS}
    for spec in unstable_methods.METHODS:
        assert spec.stability == ("stable" if spec.name in stable_names else "unstable"), spec.name
    assert unstable_methods.REQUESTS["session/fork"].stability == "unstable"
    assert "session/fork" not in methods.REQUESTS


def test_a_method_can_be_both_a_request_and_a_notification() -> None:
    """2.4.0's unstable schema has `proxy/successor` as both; the tables keep them apart, and the
    notification's handler is told apart by name."""
    both = sorted(unstable_methods.REQUESTS.keys() & unstable_methods.NOTIFICATIONS.keys())
    if not both:
        pytest.skip(f"{SCHEMA_ORIGIN}'s unstable v1 schema has no method that is both")
    for name in both:
        request, notification = (
            unstable_methods.REQUESTS[name],
            unstable_methods.NOTIFICATIONS[name],
        )
        assert (request.kind, notification.kind) == ("request", "notification")
        assert notification.handler_name == request.handler_name + "_notification"


def test_importing_the_stable_package_loads_no_models() -> None:
    """Submodules load on first use: `import acp_protocol.v1` stays cheap."""
    code = "import sys, acp_protocol.v1; print('acp_protocol.v1.models' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def _loaded_model_groups(code: str) -> list[str]:
    """The `_models` modules a fresh interpreter has loaded after running `code`."""
    code += "; import sys; print(sorted(m for m in sys.modules if '._models.' in m))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    loaded: list[str] = json.loads(out.stdout.replace("'", '"'))
    return loaded


def test_importing_the_agent_and_client_sides_builds_no_model() -> None:
    """Model classes are built on first use, a method's group at a time."""
    assert _loaded_model_groups("import acp_protocol.v1.agent, acp_protocol.v1.client") == []


def test_a_name_builds_its_methods_group_and_what_that_uses() -> None:
    loaded = _loaded_model_groups("from acp_protocol.v1.models import PromptResponse")
    assert loaded == ["acp_protocol.v1._models.session_prompt", "acp_protocol.v1._models.shared"]


@pytest.mark.parametrize("edition", ["v1", "v1.unstable", "v2", "v2.unstable"])
def test_every_name_of_the_facade_resolves_and_star_import_gives_them_all(edition: str) -> None:
    facade = importlib.import_module(f"acp_protocol.{edition}.models")
    names = facade.__all__
    assert names and set(names) <= set(dir(facade))
    namespace: dict[str, Any] = {}
    exec(f"from acp_protocol.{edition}.models import *", namespace)
    assert all(namespace[name] is getattr(facade, name) for name in names)
    with pytest.raises(AttributeError, match="has no attribute 'NoSuchModel'"):
        facade.NoSuchModel  # noqa: B018


def test_auth_method_with_a_type_it_does_not_know_is_kept_not_taken_for_agent() -> None:
    """v1's `AuthMethod` has no `discriminator` keyword: its tag `type` is inferred. "When no
    `type` is present, the method is treated as `agent`"; an `env_var` method from a newer agent
    is kept whole, never parsed as the agent one."""
    adapter: TypeAdapter[Any] = TypeAdapter(models.AuthMethod)
    wire = {"type": "env_var", "id": "key", "name": "API key", "vars": [{"name": "API_KEY"}]}
    unknown = adapter.validate_python(wire)
    assert isinstance(unknown, models.UnknownAuthMethod)
    assert adapter.dump_python(unknown, mode="json", by_alias=True, exclude_unset=True) == wire
    agent = adapter.validate_python({"id": "agent", "name": "Log in"})
    assert isinstance(agent, models.AuthMethodAgent)
    terminal = adapter.validate_python({"type": "terminal", "id": "tui", "name": "Terminal"})
    assert isinstance(terminal, models.TerminalAuthMethod)
