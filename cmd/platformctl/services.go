package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"

	httpapi "github.com/platform/backend/http"
	"github.com/platform/backend/internal/app"
)

// services prints every module's service with its base URL: the list
// `make run` shows and scripts read (--json).
func services(args []string) error {
	fs := flag.NewFlagSet("services", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "one JSON object per line: name, url, summary, health")
	if err := fs.Parse(args); err != nil {
		return err
	}
	enc := json.NewEncoder(os.Stdout)
	for _, m := range app.Modules() {
		if m.Service == nil {
			continue
		}
		url := serviceURL(m.Service.Name)
		if *asJSON {
			health := m.Service.HealthPath
			if health == "" {
				health = httpapi.DefaultHealthPath
			}
			if err := enc.Encode(map[string]string{"name": m.Service.Name, "url": url, "summary": m.Service.Summary, "health": health}); err != nil {
				return err
			}
			continue
		}
		fmt.Printf("  %-10s %-24s %s\n", m.Service.Name, url, m.Service.Summary)
	}
	return nil
}
