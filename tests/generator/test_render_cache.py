"""The render cache (acp_codegen/cache.py): entries keyed by the schema files, the template files
and the generator, written whole or not at all; a corrupt or foreign entry is ignored and rebuilt,
never an error; `scaffold` writes from it, byte for byte what a cold run writes."""

from __future__ import annotations

import shutil
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from acp_codegen import cache, fingerprint, pipeline, progress
from acp_codegen.cli import main
from acp_codegen.resources import PACKAGE_DIR, TEMPLATES
from tests.generator.conftest import PINNED
from tests.paths import ROOT


@pytest.fixture
def cache_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty cache folder for one test."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    return cache.folder()


@pytest.fixture(scope="module")
def inputs_copy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the project's schema/, the templates and the generator's package, whose bytes a
    test may change."""
    top = tmp_path_factory.mktemp("inputs")
    shutil.copytree(ROOT / "schema", top / "root" / "schema")
    shutil.copytree(TEMPLATES, top / "templates", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(PACKAGE_DIR, top / "acp_codegen", ignore=shutil.ignore_patterns("__pycache__"))
    return top


def keys_of(top: Path) -> cache.Inputs:
    return cache.inputs(top / "root", templates=top / "templates", sources=top / "acp_codegen")


def flip_one_byte(path: Path, offset: int = -2) -> bytes:
    """Change one byte of `path`; returns the bytes it had."""
    before = path.read_bytes()
    changed = bytearray(before)
    changed[offset] ^= 0x01
    path.write_bytes(bytes(changed))
    return before


def test_the_same_inputs_give_the_same_keys(inputs_copy: Path) -> None:
    assert keys_of(inputs_copy) == keys_of(inputs_copy)


def test_a_changed_template_byte_is_a_new_render_key_and_the_same_ir_key(
    inputs_copy: Path,
) -> None:
    before = keys_of(inputs_copy)
    template = inputs_copy / "templates" / "python" / "models.py.jinja"
    original = flip_one_byte(template)
    try:
        after = keys_of(inputs_copy)
    finally:
        template.write_bytes(original)
    assert after.render_key != before.render_key
    assert after.fingerprint != before.fingerprint
    assert after.ir_key == before.ir_key  # the IR does not depend on templates: kept


def test_a_changed_schema_or_generator_byte_is_a_new_key_of_both(inputs_copy: Path) -> None:
    before = keys_of(inputs_copy)
    for changed in (
        inputs_copy / "root" / PINNED[-1].path,
        inputs_copy / "acp_codegen" / "lowering" / "__init__.py",
    ):
        original = flip_one_byte(changed)
        try:
            after = keys_of(inputs_copy)
        finally:
            changed.write_bytes(original)
        assert (after.ir_key, after.render_key) != (before.ir_key, before.render_key)
        assert after.ir_key != before.ir_key and after.render_key != before.render_key


def test_an_entry_is_found_under_its_key_and_name_only(cache_home: Path) -> None:
    cache.store("k1", "starter", "source text")
    assert cache.load("k1", "starter") == "source text"
    assert cache.load("k1", "other") is None
    assert cache.load("k2", "starter") is None


@pytest.mark.parametrize(
    "damage",
    ["a flipped payload byte", "truncated", "not an entry", "another key's entry", "empty"],
)
def test_a_corrupt_or_foreign_entry_is_ignored_never_an_error(
    cache_home: Path, damage: str
) -> None:
    cache.store("k1", "tree", {"a.py": b"print(1)\n"})
    cache.store("k2", "tree", {"a.py": b"print(2)\n"})
    entry = cache_home / "k1" / "tree"
    if damage == "a flipped payload byte":
        flip_one_byte(entry)
    elif damage == "truncated":
        entry.write_bytes(entry.read_bytes()[:-5])
    elif damage == "not an entry":
        entry.write_bytes(b"\x80\x04garbage, no header line")
    elif damage == "another key's entry":
        shutil.copyfile(cache_home / "k2" / "tree", entry)
    else:
        entry.write_bytes(b"")
    assert cache.load("k1", "tree") is None
    cache.store("k1", "tree", {"a.py": b"print(1)\n"})  # rebuilt: written over the bad one
    assert cache.load("k1", "tree") == {"a.py": b"print(1)\n"}


def test_a_cache_that_cannot_be_written_is_only_slower(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("the cache folder's parent is a file")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocker))
    cache.store("k1", "starter", "source text")  # no exception
    assert cache.load("k1", "starter") is None


def test_concurrent_writers_and_readers_see_a_whole_entry_or_none(cache_home: Path) -> None:
    values = [{"file.py": bytes([n]) * 200_000} for n in range(4)]
    seen: list[object] = []

    def write(value: dict[str, bytes]) -> None:
        for _ in range(10):
            cache.store("k1", "tree", value)
            seen.append(cache.load("k1", "tree"))

    threads = [threading.Thread(target=write, args=(value,)) for value in values]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert seen and all(value in values for value in seen)
    assert not [p.name for p in (cache_home / "k1").iterdir() if p.name != "tree"]  # no temp left


def test_only_the_keys_used_last_are_kept(cache_home: Path) -> None:
    for n in range(cache.KEEP + 3):
        cache.store(f"key{n:02}", "starter", str(n))
    kept = sorted(p.name for p in cache_home.iterdir())
    assert len(kept) == cache.KEEP
    assert f"key{cache.KEEP + 2:02}" in kept  # the newest stays


def test_a_tree_is_written_back_as_it_was_read(tmp_path: Path) -> None:
    source = tmp_path / "rendered"
    (source / "python" / "empty").mkdir(parents=True)
    (source / "python" / "a.py").write_bytes(b"x = 1\n")
    (source / "go" / "b.go").parent.mkdir()
    (source / "go" / "b.go").write_bytes(b"package b\n\xff")
    copy = tmp_path / "copy"
    cache.Tree.read(source, ("a review line",)).write(copy)
    assert cache.Tree.read(copy, ("a review line",)) == cache.Tree.read(source, ("a review line",))
    assert (copy / "python" / "empty").is_dir()


@pytest.fixture(scope="module")
def scaffolded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A starter written by `scaffold` with an empty cache (cold: the schemas loaded), in a cache
    folder of this module's own."""
    top = tmp_path_factory.mktemp("scaffold")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("XDG_CACHE_HOME", str(top / "xdg"))
        assert main(["scaffold", "agent", "--protocol", "v2", "--out", str(top / "cold.py")]) == 0
        yield top


def warm_scaffold(out: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`scaffold` with the schemas never loaded: a cache miss fails the test."""

    def no_loading(*args: object, **kwargs: object) -> None:
        raise AssertionError("the schemas were loaded: the cache was missed")

    monkeypatch.setattr(pipeline, "load_specification", no_loading)
    assert main(["scaffold", "agent", "--protocol", "v2", "--out", str(out)]) == 0


def test_a_warm_scaffold_writes_what_a_cold_one_wrote_byte_for_byte(
    scaffolded: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(scaffolded / "xdg"))
    warm_scaffold(scaffolded / "warm.py", monkeypatch)
    assert (scaffolded / "warm.py").read_bytes() == (scaffolded / "cold.py").read_bytes()


def test_a_corrupt_starter_entry_is_rendered_again_from_the_cached_ir(
    scaffolded: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(scaffolded / "xdg"))
    key = cache.inputs(ROOT).render_key
    entry = cache.folder() / key / "starter-python-agent-v2-stable"
    flip_one_byte(entry)
    warm_scaffold(scaffolded / "again.py", monkeypatch)  # the IR still cached: no loading
    assert (scaffolded / "again.py").read_bytes() == (scaffolded / "cold.py").read_bytes()
    assert cache.load(key, entry.name) == (scaffolded / "cold.py").read_text()  # rebuilt


def test_progress_is_plain_lines_on_stderr_with_the_progress_option_else_nothing(
    scaffolded: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """stderr here is no terminal: a starter rendered from the cached IR (one step) shows its
    line only with --progress; --quiet and no option show nothing."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(scaffolded / "xdg"))
    monkeypatch.setattr(progress, "DELAY", 0.0)  # as if every step took longer than the delay
    entry = cache.folder() / cache.inputs(ROOT).render_key / "starter-python-agent-v2-stable"
    lines = {}
    for option in ("--progress", "--quiet", None):
        entry.unlink(missing_ok=True)
        options = [option] if option else []
        out = scaffolded / f"progress{option}.py"
        assert main([*options, "scaffold", "agent", "--protocol", "v2", "--out", str(out)]) == 0
        lines[option] = capsys.readouterr().err
    assert lines == {
        "--progress": "acp-codegen: rendering the v2 python agent (1/1)…\n",
        "--quiet": "",
        None: "",
    }


def test_check_compares_a_tree_to_the_cached_one_by_its_hashes(
    cache_home: Path, tmp_path: Path
) -> None:
    """A tree written as the cache holds it, with the fingerprint a run writes, matches; one
    changed byte, a file more, or no cache entry, and the full check (rendering) decides."""
    inputs = cache.inputs(ROOT)
    tree = cache.Tree({"python/a.py": b"x = 1\n", "python/a-b/c.py": b"y\n"}, ("python",))
    committed = tmp_path / "generated"
    tree.write(committed)
    outputs = fingerprint.cached_tree_hash(tree)
    (committed / fingerprint.FINGERPRINT).write_text(
        fingerprint.text(inputs.fingerprint, outputs, ())
    )
    assert outputs == fingerprint.tree_hash(committed)  # the same order as the files on disk
    assert not fingerprint.matches_cached(ROOT, committed)  # nothing cached yet
    cache.store(inputs.render_key, "tree", tree)
    assert fingerprint.matches_cached(ROOT, committed)
    flip_one_byte(committed / "python" / "a.py")
    assert not fingerprint.matches_cached(ROOT, committed)
    flip_one_byte(committed / "python" / "a.py")
    (committed / "python" / "extra.py").write_text("")
    assert not fingerprint.matches_cached(ROOT, committed)
