"""The features agent (features.py) with no bug: the control, which fails no case."""

from tests.conformance.broken.features import FeatureBugs, serve

serve(FeatureBugs())
