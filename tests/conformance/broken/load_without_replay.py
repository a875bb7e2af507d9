"""The features agent (features.py) with one bug: `FeatureBugs.load_without_replay`."""

from tests.conformance.broken.features import FeatureBugs, serve

serve(FeatureBugs(load_without_replay=True))
