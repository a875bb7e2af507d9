"""docs/scale.md shows the nginx config the tests run: its block is deploy/nginx/acp.conf,
byte for byte, and what the page says of it holds (the route map, the sticky rule); its load
figures are bench/results-scale.json's, as bench/scale_report.py renders them."""

from __future__ import annotations

import importlib.util
import json
import re
from types import ModuleType

from tests.docs.blocks import PAGES, blocks_of
from tests.paths import ROOT
from tests.services import nginx

PAGE = ROOT / "docs" / "scale.md"
BENCH = ROOT / "bench"


def test_the_page_shows_the_repository_s_nginx_config_byte_for_byte() -> None:
    assert PAGE in PAGES
    shown = [b.text for b in blocks_of(PAGE) if "deploy/nginx/acp.conf" in " ".join(b.words)]
    assert shown == [nginx.TEMPLATE.read_text()]


def test_the_rendered_config_sends_a_connection_id_to_the_route_before_its_dot() -> None:
    text = nginx.render("/tmp/x", "127.0.0.1:1", {"a": 1001, "b": 1002})
    assert not re.findall(r"@(?:PREFIX|LISTEN|ANY|ROUTES)@", text)  # every placeholder filled
    assert "upstream acp_a { server 127.0.0.1:1001; }" in text
    assert "upstream acp_b { server 127.0.0.1:1002; }" in text
    assert '"~^(?<route>[a-z0-9]+)\\." acp_$route;' in text
    assert "default acp_any;" in text


def _scale_report() -> ModuleType:
    spec = importlib.util.spec_from_file_location("scale_report", BENCH / "scale_report.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_page_s_load_figures_are_the_results_file_s() -> None:
    report = _scale_report()
    results = json.loads((BENCH / "results-scale.json").read_text())
    assert report.shown(PAGE.read_text()) == report.render(results)


def test_the_load_figures_cover_1_2_and_4_processes_sqlite_and_the_official_server() -> None:
    results = json.loads((BENCH / "results-scale.json").read_text())
    measured = {(row["config"], row["k"]) for row in results["rows"]}
    configs = {"ts-sdk none x1", "ours none x1", "ours sqlite x1"} | {
        f"ours postgres x{n}" for n in (1, 2, 4)
    }
    assert measured == {(config, k) for config in configs for k in results["settings"]["ks"]}
    assert results["machine"]["cpu"] and results["machine"]["cpus"] >= 1
