// Package all imports the standard set of blocks so they register, with the mock workspace
// (the config adapter for saved mock servers); each registers its commands too.
package all

import (
	_ "github.com/octo-run/octo/blocks/agent/app"
	_ "github.com/octo-run/octo/blocks/agent/bridge"
	_ "github.com/octo-run/octo/blocks/agent/console"
	_ "github.com/octo-run/octo/blocks/aiagent"
	_ "github.com/octo-run/octo/blocks/ask"
	_ "github.com/octo-run/octo/blocks/catch"
	_ "github.com/octo-run/octo/blocks/delay"
	_ "github.com/octo-run/octo/blocks/fail"
	_ "github.com/octo-run/octo/blocks/httpmock"
	_ "github.com/octo-run/octo/blocks/httprequest"
	_ "github.com/octo-run/octo/blocks/httpresponse"
	_ "github.com/octo-run/octo/blocks/jwtvalidate"
	_ "github.com/octo-run/octo/blocks/jwtvalidate/authserver" // octo auth-server
	_ "github.com/octo-run/octo/blocks/log"
	_ "github.com/octo-run/octo/blocks/mcp/client"
	_ "github.com/octo-run/octo/blocks/mcp/mock"
	_ "github.com/octo-run/octo/blocks/mcp/mock/record" // octo record
	_ "github.com/octo-run/octo/blocks/mcp/mock/workspace"
	_ "github.com/octo-run/octo/blocks/mcp/proxy"
	_ "github.com/octo-run/octo/blocks/mcp/router"
	_ "github.com/octo-run/octo/blocks/mcp/router/openapi" // octo import openapi
	_ "github.com/octo-run/octo/blocks/natspublish"
	_ "github.com/octo-run/octo/blocks/oauthmetadata"
	_ "github.com/octo-run/octo/blocks/progress"
	_ "github.com/octo-run/octo/blocks/retry"
	_ "github.com/octo-run/octo/blocks/setpayload"
	_ "github.com/octo-run/octo/blocks/switchblock"
	_ "github.com/octo-run/octo/octotest" // octo test, its cases and their schema
)
