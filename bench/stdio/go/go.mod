module acp-codegen-bench

go 1.24

require acp-protocol-sdk v0.0.0

require github.com/coder/acp-go-sdk v0.13.0

replace acp-protocol-sdk => ../../../generated/go
