package tasks

import "time"

// Settings are the limits of a server's tasks (the tasks extension of 2026-07-28), as the
// MCP blocks take them in their settings; nil fields are the defaults.
type Settings struct {
	MaxTasks         *int           `yaml:"maxTasks" min:">0" max:"100000" doc:"Tasks the server keeps at once, running or finished; when all are taken the oldest finished one is dropped, and with none finished a call that would start a task gets error -32603. Default 1000."`
	MaxTasksPerOwner *int           `yaml:"maxTasksPerOwner" min:">0" max:"100000" doc:"Of those, the tasks one requester may hold (a token's subject, else a hash of its Authorization header; every requester without either counts as one), so that one client cannot take every place: past it that requester's oldest finished task is dropped, and with none finished its new task gets error -32603, not anyone else's. Default 100, at most maxTasks."`
	TTL              *time.Duration `yaml:"ttl" min:">0" doc:"How long a task is kept from its creation (ttlMs): then it is stopped if still running and dropped, and tasks/get says it expired. Default 10m."`
	PollInterval     *time.Duration `yaml:"pollInterval" min:">0" doc:"How often clients are asked to poll tasks/get (pollIntervalMs). Default 1s."`
	MaxResultBytes   *int64         `yaml:"maxResultBytes" min:">0" doc:"Bytes of one task's result; a larger result fails the task with error -32603. Default 1048576."`
	TakeoverAfter    *time.Duration `yaml:"takeoverAfter" min:"1s" doc:"In a cluster (service.cluster), how long the replica working on a task may go silent before another replica takes the task over: one that dies leaves its tasks for this long. A working replica says it is alive three times per this. Default 30s."`
}

// Takeover is TakeoverAfter, 0 for the default.
func (s *Settings) Takeover() time.Duration {
	if s == nil || s.TakeoverAfter == nil {
		return 0
	}
	return *s.TakeoverAfter
}

// Limits are the settings as the store takes them; nil settings are the defaults.
func (s *Settings) Limits() Limits {
	if s == nil {
		return Limits{}
	}
	var l Limits
	if s.MaxTasks != nil {
		l.MaxTasks = *s.MaxTasks
	}
	if s.MaxTasksPerOwner != nil {
		l.MaxTasksPerOwner = *s.MaxTasksPerOwner
	}
	if s.TTL != nil {
		l.TTL = *s.TTL
	}
	if s.PollInterval != nil {
		l.PollInterval = *s.PollInterval
	}
	if s.MaxResultBytes != nil {
		l.MaxResultBytes = *s.MaxResultBytes
	}
	return l
}
