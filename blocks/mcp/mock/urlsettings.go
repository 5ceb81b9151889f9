package mock

// urlStepConfig holds the keys of an elicit step in URL mode (2025-11-25 and later): the user
// is asked to open a link, does something there the client never sees, and the server learns
// the outcome out of band. The mock stands in for that outside page with a timer.
type urlStepConfig struct {
	Mode            string `yaml:"mode" default:"form" enum:"form,url" doc:"An elicit step's mode: form asks for values (schema); url asks the user to open url (2025-11-25 and later, for clients that declare elicitation.url)."`
	URL             string `yaml:"url" doc:"A url elicit step's link, a template that must render to an absolute http or https URL; {{elicitationId}} in it is the elicitation's id (on 2026-07-28, which sends none, a fresh one)." example:"https://calendar.example.com/connect?elicitation={{elicitationId}}"`
	CompleteAfterMs int64  `yaml:"completeAfterMs" min:"0" max:"3600000" doc:"A url elicit step: how long after the user accepts (or after error -32042 is answered) the outside interaction counts as done, in milliseconds (at most an hour). The call waits that long before going on."`
	NotifyComplete  bool   `yaml:"notifyComplete" default:"true" doc:"A url elicit step: send notifications/elicitation/complete with the elicitationId once the interaction is done (2025-11-25 sessions; 2026-07-28 has no such notification)."`
	Required        bool   `yaml:"required" doc:"A url elicit step: on 2025-11-25 answer the request with error -32042 (URL elicitation required) listing this elicitation instead of asking during it; once the interaction is done (completeAfterMs), the session's later requests pass the step. On 2026-07-28, where -32042 does not exist, the step is asked as an input request."`
	OnDecline       string `yaml:"onDecline" doc:"A url elicit step: the failed call's text when the user declines to open the link, a template; default: a sentence naming the URL."`
	OnCancel        string `yaml:"onCancel" doc:"A url elicit step: the failed call's text when the user dismisses the request, a template; default: a sentence naming the URL."`
}
