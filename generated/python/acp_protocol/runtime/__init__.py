# Copied by acp-codegen from templates/python/runtime/__init__.py. Do not edit here:
# edit the source, then run `make generate`.

"""The hand-written runtime shipped inside the generated package (source: templates/python/runtime/)."""
