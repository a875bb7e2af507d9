"""The features agent (features.py) with one bug: `FeatureBugs.exits_on_unknown_field`."""

from tests.conformance.broken.features import FeatureBugs, serve

serve(FeatureBugs(exits_on_unknown_field=True))
