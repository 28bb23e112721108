package servercheck

import "github.com/mcptestkit/mcptestkit/mcptest/internal/monitor"

// monitorRules are the IDs of the rules of the protocol monitor
// (mcptest/internal/monitor, monitor.Rules) that the requirement table
// names.
var monitorRules = func() []string {
	var ids []string
	for _, r := range monitor.Rules() {
		ids = append(ids, r.ID)
	}
	return ids
}()
