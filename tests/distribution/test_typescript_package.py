"""The generated TypeScript package as a user installs it, outside this checkout: `npm ci` from
its own lock (which builds it, strict), `npm pack`, then `npm install` of the tarball into an
empty project whose ES module imports `acp-protocol-sdk` and `acp-protocol-sdk/v1` and runs an
in-memory agent <-> client round trip."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.paths import ROOT

USER_PROGRAM = """\
import { memoryPair, SCHEMA_VERSION, RequestError } from "acp-protocol-sdk";
import * as v1 from "acp-protocol-sdk/v1";

const [left, right] = memoryPair();
v1.connectAgent({
  async initialize(params) { return { protocolVersion: params.protocolVersion }; },
  async sessionNew() { return { sessionId: "s-1" }; },
  async sessionPrompt(params, ctx) {
    await ctx.client.sessionUpdate({ sessionId: params.sessionId, update: {
      sessionUpdate: "agent_message_chunk", content: { type: "text", text: "hi" } } });
    return { stopReason: "end_turn" };
  },
}, left);
const chunks = [];
const connection = v1.connectClient({
  async sessionUpdate(params) { chunks.push(params.update.content.text); },
}, right);
const init = await connection.agent.initialize({ protocolVersion: v1.PROTOCOL_VERSION });
const { sessionId } = await connection.agent.sessionNew({ cwd: "/", mcpServers: [] });
const prompt = [{ type: "text", text: "x" }];
const answer = await connection.agent.sessionPrompt({ sessionId, prompt });
let refused = null;
try { await connection.agent.sessionLoad({ sessionId, cwd: "/", mcpServers: [] }); }
catch (error) { refused = error instanceof RequestError ? error.code : String(error); }
await connection.close();
console.log(JSON.stringify({ schema: SCHEMA_VERSION, init, answer, chunks, refused }));
"""


def npm(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    program = shutil.which("npm")
    if program is None:
        pytest.fail("npm is not on PATH; the TypeScript package needs node 20.3+ and npm")
    done = subprocess.run(
        [program, *args, "--no-audit", "--no-fund"],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, f"npm {args} failed:\n{done.stdout}\n{done.stderr}"
    return done


def test_the_packed_typescript_package_installs_and_runs_in_an_empty_project(
    tmp_path: Path,
) -> None:
    package = tmp_path / "package"
    shutil.copytree(ROOT / "generated" / "typescript", package)
    npm("ci", cwd=package)  # `prepare` builds it with tsc (strict) from its own lock
    [packed] = json.loads(npm("pack", "--json", cwd=package).stdout)
    tarball = package / packed["filename"]
    assert {f["path"] for f in packed["files"]} >= {"dist/v1/index.js", "dist/v1/index.d.ts"}

    project = tmp_path / "project"
    project.mkdir()
    (project / "package.json").write_text('{"name": "user-project", "type": "module"}\n')
    npm("install", str(tarball), cwd=project)
    installed = json.loads((project / "package.json").read_text())
    assert list(installed["dependencies"]) == ["acp-protocol-sdk"]
    assert not (project / "node_modules" / "typescript").exists()  # dev dependencies stay behind
    (project / "main.mjs").write_text(USER_PROGRAM)
    done = subprocess.run(
        ["node", "main.mjs"], cwd=project, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report == {
        "schema": json.loads((ROOT / "schema" / "lock.json").read_text())["version"],
        "init": {"protocolVersion": 1},
        "answer": {"stopReason": "end_turn"},
        "chunks": ["hi"],
        "refused": -32601,
    }
