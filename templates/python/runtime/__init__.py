"""The hand-written runtime shipped inside the generated package (source: templates/python/runtime/)."""
