module field-replay

go 1.24

require acp-protocol-sdk v0.0.0

replace acp-protocol-sdk => ../../../../generated/go
