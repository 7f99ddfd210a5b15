module github.com/switchboard/scenario

go 1.19

require (
	github.com/switchboard/billing v0.0.0
	github.com/switchboard/platform v0.0.0
)
