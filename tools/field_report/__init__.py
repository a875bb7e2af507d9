"""`python -m tools.field_report`: docs/field.md's table and "beyond the schema" sections, made
from the field's recordings (tests/field/recordings)."""
