"""`acp-codegen scaffold agent|client --lang go`: the v1 starters, written into a module of their
own that requires the generated one (.build/go/starter), are gofmt-clean, pass `go vet`, build,
and run: the starter client spawns the starter agent, prompts it and prints the streamed reply;
a "read PATH" prompt goes through the client's fs/read_text_file, served only under its working
directory; our Python client prompts the starter agent too."""

from __future__ import annotations

import functools
import signal
import subprocess
import time
from pathlib import Path

import pytest
from acp_protocol.v1 import models
from acp_protocol.v1.client import Client, ClientContext, spawn_agent

from acp_codegen import cli
from tests.go.support import assert_ok, run_go
from tests.interop.support import of, run_their_v2_client, states
from tests.paths import ROOT

STARTER = ROOT / ".build" / "go" / "starter"
GO_MOD = f"""module starter

go 1.24

require acp-protocol-sdk v0.0.0

replace acp-protocol-sdk => {ROOT / "generated" / "go"}
"""


@functools.cache
def starters() -> Path:
    """Both starters (and the unstable agent) written and built; the folder of the programs."""
    (STARTER / "go.mod").parent.mkdir(parents=True, exist_ok=True)
    (STARTER / "go.mod").write_text(GO_MOD)
    for role, flags in (
        ("agent", []),
        ("client", []),
        ("unstable_agent", ["--unstable"]),
        ("v2_agent", ["--protocol", "v2"]),
        ("v2_client", ["--protocol", "v2"]),
    ):
        out = STARTER / role / "main.go"
        kind = role.removeprefix("unstable_").removeprefix("v2_")
        argv = ["scaffold", kind, "--lang", "go", *flags, "--out", str(out), "--force"]
        assert cli.main(argv) == 0
    assert_ok(run_go(["go", "vet", "./..."], STARTER))
    assert_ok(run_go(["go", "build", "-o", "bin/", "./..."], STARTER))
    return STARTER / "bin"


def starter_client(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    bin_dir = starters()
    command = [str(bin_dir / "client"), *args, str(bin_dir / "agent")]
    return subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=60)


def test_the_go_starters_are_gofmt_clean_and_pass_go_vet() -> None:
    starters()
    result = run_go(["gofmt", "-l", str(STARTER)], ROOT)
    assert_ok(result)
    assert result.stdout == "", f"not gofmt-clean:\n{result.stdout}"
    assert (STARTER / "bin" / "unstable_agent").is_file()
    assert (STARTER / "bin" / "v2_agent").is_file()


def test_the_go_starter_client_prompts_the_go_starter_agent_and_prints_the_streamed_reply(
    tmp_path: Path,
) -> None:
    result = starter_client(tmp_path, "-prompt", "hello there")
    assert result.returncode == 0, result.stderr
    assert result.stdout == "You said: hello there \n[end_turn]\n"


def test_the_go_starter_agent_reads_through_the_client_under_its_working_directory(
    tmp_path: Path,
) -> None:
    (tmp_path / "notes.txt").write_text("first line\nsecond line\n")
    result = starter_client(tmp_path, "-prompt", "read notes.txt")
    assert result.returncode == 0, result.stderr
    assert result.stdout == "first line \n[end_turn]\n"


def test_the_go_starter_client_refuses_a_file_outside_its_working_directory_32602(
    tmp_path: Path,
) -> None:
    result = starter_client(tmp_path, "-prompt", f"read {ROOT / 'README.md'}")
    assert result.returncode == 1
    assert "the path is outside the allowed roots" in result.stderr
    assert "(-32602)" in result.stderr


class ChunkClient(Client):
    def __init__(self) -> None:
        self.text = ""

    async def session_update(self, params: models.SessionNotification, ctx: ClientContext) -> None:
        update = params.update
        if isinstance(update, models.SessionUpdateAgentMessageChunk) and isinstance(
            update.content, models.ContentBlockText
        ):
            self.text += update.content.text


async def test_our_python_client_prompts_the_go_starter_agent(tmp_path: Path) -> None:
    client = ChunkClient()
    async with spawn_agent(client, str(starters() / "agent")) as connection:
        init = await connection.agent.initialize(models.InitializeRequest(protocol_version=1))
        assert init.agent_info is not None and init.agent_info.name == "starter-agent"
        session = await connection.agent.session_new(
            models.NewSessionRequest(cwd=str(tmp_path), mcp_servers=[])
        )
        text = [models.ContentBlockText(type="text", text="hi from python")]
        request = models.PromptRequest(session_id=session.session_id, prompt=text)
        response = await connection.agent.session_prompt(request)
    assert response.stop_reason == "end_turn"
    assert client.text == "You said: hi from python "


# -- the v2 starters (the insertion lifecycle) ---------------------------------------------------


def v2_client(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    bin_dir = starters()
    command = [str(bin_dir / "v2_client"), *args, str(bin_dir / "v2_agent")]
    return subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=60)


def test_the_go_v2_starter_client_prints_the_work_until_the_agent_reports_idle(
    tmp_path: Path,
) -> None:
    result = v2_client(tmp_path, "-prompt", "hello there")
    assert result.returncode == 0, result.stderr
    assert result.stdout == "You said: hello there \n[end_turn]\n"


@pytest.mark.parametrize(
    ("flags", "reply"), [(("-approve-all",), "Allowed. "), ((), "Not allowed. ")]
)
def test_the_go_v2_starter_agent_asks_permission_and_goes_on_with_the_answer(
    tmp_path: Path, flags: tuple[str, ...], reply: str
) -> None:
    result = v2_client(tmp_path, *flags, "-prompt", "ask may I")
    assert result.returncode == 0, result.stderr
    assert result.stdout == f"{reply}\n[end_turn]\n"


@pytest.mark.parametrize("attempt", range(5))  # repeated: a race between the cancel and stdin shows
def test_ctrl_c_in_the_go_v1_starter_client_sends_session_cancel_and_prints_cancelled(
    tmp_path: Path, attempt: int
) -> None:
    """prompt-turn § Cancellation: the client sends `session/cancel`; "the Agent MUST respond to
    the original `session/prompt` request with the `cancelled` stop reason". Ctrl-C must not
    close the agent's stdin before the cancel is read (the agent lives until the connection
    closes), and the client waits for that answer and exits 0."""
    bin_dir = starters()
    words = " ".join(str(n) for n in range(200))  # 10 s at the starter agent's pace
    command = [str(bin_dir / "client"), "-prompt", words, str(bin_dir / "agent")]
    client = subprocess.Popen(
        command, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    assert client.stdout is not None
    assert client.stdout.read(len("You said: 0 ")) == "You said: 0 "  # the turn runs
    client.send_signal(signal.SIGINT)
    out, err = client.communicate(timeout=30)
    assert client.returncode == 0, err
    assert out.endswith("\n[cancelled]\n") and "199" not in out


def test_ctrl_c_in_the_go_v2_starter_client_cancels_the_work_and_waits_for_idle(
    tmp_path: Path,
) -> None:
    bin_dir = starters()
    words = " ".join(str(n) for n in range(60))
    command = [str(bin_dir / "v2_client"), "-prompt", words, str(bin_dir / "v2_agent")]
    client = subprocess.Popen(command, cwd=tmp_path, stdout=subprocess.PIPE, text=True)
    time.sleep(0.5)
    client.send_signal(signal.SIGINT)
    out, _ = client.communicate(timeout=30)
    assert client.returncode == 0
    assert out.endswith("\n[cancelled]\n") and out.startswith("You said: 0 ")


async def test_the_official_v2_client_prompts_the_go_v2_starter_agent() -> None:
    events = await run_their_v2_client("prompt", str(starters() / "v2_agent"))
    [init] = of(events, "initialize")
    assert init["protocolVersion"] == 2 and init["info"]["name"] == "starter-agent"
    assert states(of(events, "update"))[-1] == "state_update:idle:end_turn"
    updates = of(events, "update")
    chunks = [u["content"]["text"] for u in updates if u["sessionUpdate"] == "agent_message_chunk"]
    assert "".join(chunks) == "You said: hello big world "
