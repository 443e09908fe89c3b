package gateway

// aiArea is the AI actions (ai_*.go); empty until the provider adapters
// are wired.
func aiArea(d Deps) Area { return Area{} }
