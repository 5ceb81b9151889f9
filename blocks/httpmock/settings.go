package httpmock

// Settings are the http-mock block's settings: in a workspace, the `http:` section of a saved
// server file of kind http.
type Settings struct {
	Seed      *int64            `yaml:"seed" doc:"Makes {{$…}} values and the requests failureRate fails reproducible: the same seed gives the same values."`
	Variables map[string]string `yaml:"variables" doc:"Values for {{name}} tags in answers, filled in at load; they win over a workspace's variables." example:"{currency: EUR}"`
	CORS      bool              `yaml:"cors" doc:"A saved server's: answer browsers on other origins (preflights included). In a flow config this is the http connector's cors."`
	Routes    []routeConfig     `yaml:"routes" doc:"The routes, tried in the order written: the first whose method and path fit a request answers it. A path that fits no route is 404, one that fits only other methods 405; both say which routes there are."`
}

// routeConfig is one route: what it takes and how it answers.
type routeConfig struct {
	Method      string            `yaml:"method" default:"GET" enum:"GET,HEAD,POST,PUT,PATCH,DELETE,OPTIONS" octo:"anycase" doc:"The HTTP method, in any case."`
	Path        string            `yaml:"path" octo:"required" doc:"The path: literal segments and {name} parameters, each one whole segment, read as {{params.name}}." example:"/invoices/{id}"`
	Status      int               `yaml:"status" default:"200" min:"100" max:"599" doc:"The status to answer with."`
	Headers     map[string]string `yaml:"headers" doc:"Headers to answer with, each value a template. Without Content-Type, a body that is JSON goes as application/json, any other as text/plain." example:"{Location: \"/invoices/{{params.id}}\"}"`
	Body        *string           `yaml:"body" doc:"The answer's body, a template over {{params.x}}, {{query.x}}, {{headers.x}} (lower-case names), {{body.x}} (a JSON or form body), variables and {{$…}} values. Empty: no body." example:"{\"id\": \"{{params.id}}\", \"total\": 12.5}"`
	DelayMs     int64             `yaml:"delayMs" min:"0" max:"3600000" doc:"Milliseconds to wait before answering, at most an hour."`
	Enabled     bool              `yaml:"enabled" default:"true" doc:"false: the route takes no requests."`
	Answers     []answerConfig    `yaml:"answers" doc:"Answers that vary with the request, picked as answerOrder says; when none applies, the route's own (status, headers, body, delayMs). The traffic log says which one answered."`
	AnswerOrder string            `yaml:"answerOrder" default:"match" enum:"match,sequence,cycle" doc:"How a request's answer is picked from answers: match, the first whose when holds; sequence, the route's first request the first answer, its second the second, and the last one from then on; cycle, the same, starting over after the last."`
	FailureRate float64           `yaml:"failureRate" min:"0" max:"1" doc:"The share of requests (0 to 1) answered with failure instead, drawn from the server's seed when it has one, so a run can be repeated."`
	Failure     *answerConfig     `yaml:"failure" doc:"What a request picked by failureRate answers; default: 500 with a JSON error saying the failure was simulated."`
}

// answerConfig is one of a route's answers: when it applies, and what it answers; what it does
// not say is the route's.
type answerConfig struct {
	When    string            `yaml:"when" doc:"An expression that picks this answer (answerOrder match): over method, path, params, query, headers (lower-case names), body and call (the route's requests so far, this one included). Empty: always." example:"params.id == \"0\" || query.page > \"9\""`
	Status  int               `yaml:"status" min:"100" max:"599" doc:"The status; default the route's."`
	Headers map[string]string `yaml:"headers" doc:"Headers, each value a template; default the route's."`
	Body    *string           `yaml:"body" doc:"The body, a template; default the route's."`
	DelayMs *int64            `yaml:"delayMs" min:"0" max:"3600000" doc:"Milliseconds to wait before this answer; default the route's delayMs."`
}
