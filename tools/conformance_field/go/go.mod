module acp-conformance-field

go 1.24

require github.com/coder/acp-go-sdk v0.13.0
