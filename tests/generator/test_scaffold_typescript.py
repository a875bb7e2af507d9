"""`acp-codegen scaffold agent|client --lang typescript [--protocol v2]`: starters that compile
under `strict` against the generated TypeScript package and run against each other over stdio; the
v2 agent starter also against the official TS SDK 2.4.0's v2 client."""

from __future__ import annotations

import re
import shutil
import signal
import subprocess
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from acp_codegen.cli import main
from acp_codegen.pipeline import ROOT
from tests.interop.test_interop_v2_python import first, states, their_v2_client

BUILD = ROOT / ".build" / "typescript"
TSCONFIG = """{
  "extends": "../../tsconfig.json",
  "compilerOptions": {"rootDir": ".", "outDir": "out", "declaration": false},
  "include": ["."]
}
"""


def node() -> str:
    program = shutil.which("node")
    if program is None or not (BUILD / "node_modules" / ".bin" / "tsc").exists():
        pytest.fail("node and the built TypeScript package are needed: run `make ts-build`")
    return program


def write_and_compile(folder: Path, *flags: str) -> None:
    """Both starters for `flags`, written by the real command line into `folder` inside the built
    package (so that `import … from "acp-protocol-sdk/v1"` resolves to it), compiled with tsc."""
    node()
    folder.mkdir(parents=True)
    for role in ("agent", "client"):
        out = folder / f"{role}.ts"
        assert main(["scaffold", role, "--lang", "typescript", "--out", str(out), *flags]) == 0
    (folder / "tsconfig.json").write_text(TSCONFIG)
    tsc = subprocess.run(
        [str(BUILD / "node_modules" / ".bin" / "tsc"), "-p", str(folder / "tsconfig.json")],
        capture_output=True,
        text=True,
        cwd=BUILD,
    )
    assert tsc.returncode == 0, tsc.stdout + tsc.stderr


@pytest.fixture(scope="module", params=[False, True], ids=["stable", "unstable"])
def starters(request: pytest.FixtureRequest) -> Iterator[Path]:
    """The v1 starters (the default), compiled."""
    folder = BUILD / "scaffold-tests" / uuid.uuid4().hex
    write_and_compile(folder, *(["--unstable"] if request.param else []))
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(scope="module", params=[False, True], ids=["stable", "unstable"])
def v2_starters(request: pytest.FixtureRequest) -> Iterator[Path]:
    """The `--protocol v2` starters, compiled (`out/agent.js`, `out/client.js`)."""
    folder = BUILD / "scaffold-tests" / uuid.uuid4().hex
    write_and_compile(folder, "--protocol", "v2", *(["--unstable"] if request.param else []))
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def run_client(folder: Path, prompt: str) -> subprocess.CompletedProcess[str]:
    agent = [node(), str(folder / "out" / "agent.js")]
    command = [node(), str(folder / "out" / "client.js"), "--prompt", prompt, *agent]
    return subprocess.run(command, capture_output=True, text=True, cwd=folder, timeout=30)


def test_the_starter_client_prompts_the_starter_agent_and_prints_the_stream(starters: Path) -> None:
    done = run_client(starters, "hello there")
    assert done.returncode == 0, done.stderr
    assert done.stdout == "You said: hello there \n[end_turn]\n"


@pytest.mark.parametrize("separator", [[], ["--"]], ids=["bare", "double-dash"])
def test_the_starter_clients_pass_the_agents_own_options_through_as_given(
    starters: Path, v2_starters: Path, separator: list[str]
) -> None:
    """The agent program and everything after it are the agent's: `node --no-warnings agent.js
    --verbose` is spawned as given (`--` before the program is optional), in v1 and v2."""
    for folder, ending in ((starters, "[end_turn]"), (v2_starters, "[end_turn]")):
        agent = [node(), "--no-warnings", str(folder / "out" / "agent.js"), "--verbose"]
        command = [node(), str(folder / "out" / "client.js"), "--prompt", "hi", *separator, *agent]
        done = subprocess.run(
            command,
            capture_output=True,
            text=True,
            cwd=folder,
            timeout=30,
            stdin=subprocess.DEVNULL,
        )
        assert done.returncode == 0, done.stderr
        assert done.stdout.rstrip().endswith(ending) and "You said: hi" in done.stdout


def test_the_starter_client_serves_files_under_its_working_directory(starters: Path) -> None:
    (starters / "notes.txt").write_text("first line\nsecond line\n")
    done = run_client(starters, f"read {starters / 'notes.txt'}")
    assert done.returncode == 0, done.stderr
    assert done.stdout == "first line \n[end_turn]\n"


def test_a_file_outside_the_roots_is_refused_in_one_line(starters: Path) -> None:
    outside = starters.parent / f"{starters.name}-outside.txt"
    outside.write_text("not for the agent\n")
    done = run_client(starters, f"read {outside}")
    outside.unlink()
    assert done.returncode == 1
    assert done.stderr.strip().splitlines() == [
        "starter client: RequestError -32602: File access refused: the path is outside the "
        "allowed roots"
    ]


def test_an_agent_program_that_cannot_be_started_is_reported_in_one_line(starters: Path) -> None:
    """A missing program is a closed connection with its reason, not a node stack trace."""
    missing = starters / "no-such-agent"
    command = [node(), str(starters / "out" / "client.js"), str(missing)]
    done = subprocess.run(command, capture_output=True, text=True, cwd=starters, timeout=30)
    assert done.returncode == 1
    assert done.stderr.strip().splitlines() == [
        "starter client: ConnectionClosed: ACP connection closed: could not start "
        f"{missing}: no such program (ENOENT)"
    ]


def test_the_starter_agent_has_exactly_the_methods_it_serves(starters: Path) -> None:
    """Each handler it serves is there with the real signature (`implements acp.Agent` is
    checked by tsc); no other request: `initialize` advertises each optional method an agent
    has, so a stub answering -32601 would be advertised."""
    source = (starters / "agent.ts").read_text()
    for handler in ("initialize", "sessionNew", "sessionPrompt", "sessionCancel"):
        assert f"  async {handler}(params: acp." in source
    for handler in ("authenticate", "sessionLoad", "sessionList", "sessionResume", "sessionClose"):
        assert f"  async {handler}(params: acp." not in source


# -- --protocol v2 ---------------------------------------------------------------------------------


def role_handlers(edition: str, role: str) -> list[str]:
    """The handlers of the generated role interface (`export interface Agent { … }`)."""
    source = (ROOT / "generated" / "typescript" / "src" / edition / f"{role}.ts").read_text()
    interface = source.split(f"export interface {role.capitalize()} {{", 1)[1].split("\n}", 1)[0]
    names = re.findall(r"^  (\w+)\?\(params:", interface, flags=re.MULTILINE)
    assert names, f"no handlers found in {edition}/{role}.ts"
    return names


@pytest.mark.parametrize("role", ["agent", "client"])
def test_a_v2_starter_has_every_handler_of_its_role_with_the_schema_doc_and_names_its_command(
    v2_starters: Path, role: str
) -> None:
    """Each handler of the v2 role interface is there with its real signature (`implements
    acp.Agent` is checked by tsc) and its doc comment; the header names the command."""
    source = (v2_starters / f"{role}.ts").read_text()
    unstable = "--unstable" in source.splitlines()[0]
    handlers = role_handlers("v2/unstable" if unstable else "v2", role)
    if role == "agent":  # what it serves (the SDK: session/list from its store, session/close)
        handlers = ["initialize", "sessionNew", "sessionResume", "sessionPrompt", "sessionCancel"]
    for handler in handlers:
        head = re.search(rf"\*/\n  async {handler}\(params: acp\.\w+, ctx: acp\.(\w+)\)", source)
        assert head is not None, handler
        work = role == "agent" and handler == "sessionPrompt"
        assert head.group(1) == ("AgentWorkContext" if work else f"{role.capitalize()}Context")
    flags = " --unstable" if unstable else ""
    command = f"acp-codegen scaffold {role} --lang typescript{flags} --protocol v2"
    assert f"written by `{command}`" in source


def test_the_v2_agent_starter_leaves_the_version_to_the_sdk(v2_starters: Path) -> None:
    """`initialize` answers the SDK's negotiated version, never an echo of the client's."""
    source = (v2_starters / "agent.ts").read_text()
    assert "protocolVersion: acp.PROTOCOL_VERSION" in source
    assert "params.protocolVersion" not in source


def run_v2_client(folder: Path, *options: str) -> subprocess.CompletedProcess[str]:
    agent = [node(), str(folder / "out" / "agent.js")]
    command = [node(), str(folder / "out" / "client.js"), *options, *agent]
    return subprocess.run(
        command, capture_output=True, text=True, cwd=folder, timeout=30, stdin=subprocess.DEVNULL
    )


def test_the_v2_client_starter_gets_a_message_id_then_the_words_running_and_idle_end_turn(
    v2_starters: Path,
) -> None:
    """PromptResponse: "acknowledging that a user prompt was inserted"; the client starter's
    session view prints the inserted message's id, the states and the streamed words, then the
    stop reason of the idle update that ends the prompt's work."""
    done = run_v2_client(v2_starters, "--prompt", "hello there")
    assert done.returncode == 0, done.stderr
    assert done.stdout == "You said: hello there \n[end_turn]\n"
    lines = done.stderr.splitlines()
    assert re.fullmatch(r"\[message [0-9a-f-]{36} inserted\]", lines[0]), lines
    assert lines[1:] == ["[running]", "[idle: end_turn]"]


@pytest.mark.parametrize(("choice", "reply"), [("--approve-all", "Allowed."), ("", "Not allowed.")])
def test_the_v2_agent_starters_permission_request_is_requires_action_then_running(
    v2_starters: Path, choice: str, reply: str
) -> None:
    """StateUpdate: "The agent SHOULD report `requires_action` when the foreground workflow as a
    whole cannot progress without user action … it MUST report `running` when progress
    resumes": the SDK reports both around the starter agent's nested permission request."""
    done = run_v2_client(v2_starters, *([choice] if choice else []), "--prompt", "ask may I?")
    assert done.returncode == 0, done.stderr
    assert done.stdout == f"{reply} \n[end_turn]\n"
    states_seen = [line for line in done.stderr.splitlines() if not line.startswith("[message")]
    assert states_seen == ["[running]", "[requires_action]", "[running]", "[idle: end_turn]"]


def test_ctrl_c_in_the_v2_client_starter_sends_session_cancel_and_the_work_ends_idle_cancelled(
    v2_starters: Path,
) -> None:
    """CancelSessionNotification: "cancel a session's foreground work"; stop reason `cancelled`:
    "Agents MUST catch these errors and report `cancelled`, not `error`"."""
    words = " ".join(str(n) for n in range(400))  # 20 s of work at the starter's pace
    agent = [node(), str(v2_starters / "out" / "agent.js")]
    command = [node(), str(v2_starters / "out" / "client.js"), "--prompt", words, *agent]
    process = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=v2_starters
    )
    assert process.stdout is not None
    assert process.stdout.read(len("You said: 0 1 ")) == "You said: 0 1 "  # the work runs
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=30)
    assert process.returncode == 0, err
    assert out.endswith("\n[cancelled]\n")
    assert "399" not in out
    assert "[idle: cancelled]" in err.splitlines()
    assert re.search(
        r"^work of [0-9a-f-]{36} cancelled \(session/cancel\)$", err, re.MULTILINE
    ), err


async def test_the_official_v2_client_gets_one_agent_message_chunk_per_word_from_the_agent(
    v2_starters: Path,
) -> None:
    """The official TS SDK 2.4.0's v2 client: the prompt's answer is the inserted message's id,
    echoed in `user_message`; then `running`, one `agent_message_chunk` per word, `idle`
    `end_turn`."""
    events = await their_v2_client("prompt", node(), str(v2_starters / "out" / "agent.js"))
    assert first(events, "initialize")["protocolVersion"] == 2
    updates = [e for e in events if e.get("event") == "update"]
    assert [u["sessionUpdate"] for u in updates] == [
        "user_message",
        "state_update",
        *["agent_message_chunk"] * 5,
        "state_update",
    ]
    assert updates[0]["messageId"] == first(events, "prompt")["messageId"]
    texts = [u["content"]["text"] for u in updates if u["sessionUpdate"] == "agent_message_chunk"]
    assert texts == ["You ", "said: ", "hello ", "big ", "world "]
    assert states(events) == ["running", "idle"]
    assert first(events, "idle")["stopReason"] == "end_turn"


async def test_session_cancel_mid_work_ends_the_v2_agent_starters_work_idle_cancelled(
    v2_starters: Path,
) -> None:
    """The official v2 client sends `session/cancel` after two words of a long prompt's work,
    with a second prompt held behind it: the work ends idle `cancelled`, the held prompt gets
    -32800 ("cancel a session's foreground work and its prompts not yet inserted")."""
    events = await their_v2_client("cancel", node(), str(v2_starters / "out" / "agent.js"))
    assert [e["stopReason"] for e in events if e.get("event") == "idle"] == ["cancelled"]
    [held] = [e for e in events if e.get("event") == "error"]
    assert (held["n"], held["code"]) == (2, -32800)
    chunks = [e for e in events if e.get("sessionUpdate") == "agent_message_chunk"]
    assert 2 <= len(chunks) < 62, "cancelled mid-work"


async def test_session_close_mid_work_on_the_v2_agent_starter_sends_idle_cancelled_first(
    v2_starters: Path,
) -> None:
    """CloseSessionRequest: "the Agent MUST send the final updates for that work and the idle
    `state_update` with `stopReason: "cancelled"` before responding successfully"."""
    events = await their_v2_client("close", node(), str(v2_starters / "out" / "agent.js"))
    assert [e["stopReason"] for e in events if e.get("event") == "idle"] == ["cancelled"]
    assert first(events, "close_order")["idle_before_close"] is True
