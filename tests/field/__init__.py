"""The field: production ACP agents nobody here wrote, driven through whole turns offline against
loopback mocks of their model APIs (tests/field/mocks)."""
