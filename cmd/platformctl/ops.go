package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"text/tabwriter"
	"time"
)

// historyCmd prints the audit view: a table for people, or with --json one
// event object per line (the answer's own members) for scripts.
func historyCmd(args []string) error {
	fs := flag.NewFlagSet("history", flag.ContinueOnError)
	stream := fs.String("stream", "", "only this stream id")
	typ := fs.String("type", "", "only this event type")
	since := fs.String("since", "", "from this time (RFC 3339)")
	until := fs.String("until", "", "before this time (RFC 3339)")
	limit := fs.Int("limit", 100, "events per page")
	all := fs.Bool("all", false, "follow the cursor to the end")
	asJSON := fs.Bool("json", false, "one JSON object per event and line (for scripts), not a table")
	if err := fs.Parse(args); err != nil {
		return err
	}
	q := url.Values{}
	for k, v := range map[string]string{"streamId": *stream, "type": *typ, "since": *since, "until": *until} {
		if v != "" {
			q.Set(k, v)
		}
	}
	q.Set("limit", fmt.Sprint(*limit))
	var table *tabwriter.Writer
	if !*asJSON {
		table = tabwriter.NewWriter(os.Stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(table, "TIME (UTC)\tTYPE\tSTREAM\tACTOR\tORGANIZATION")
	}
	rows := 0
	for {
		body, status, err := do(http.MethodGet, serviceURL("ops")+"/api/history?"+q.Encode(), nil, nil)
		if err != nil {
			return err
		}
		if status != http.StatusOK {
			return fmt.Errorf("history answered %d: %s", status, body)
		}
		var page struct {
			Events []json.RawMessage `json:"events"`
			Next   string            `json:"next"`
		}
		if err := json.Unmarshal(body, &page); err != nil {
			return err
		}
		for _, raw := range page.Events {
			if *asJSON {
				var line bytes.Buffer
				if err := json.Compact(&line, raw); err != nil {
					return err
				}
				fmt.Println(line.String())
				continue
			}
			var e historyRow
			if err := json.Unmarshal(raw, &e); err != nil {
				return err
			}
			fmt.Fprintf(table, "%s\t%s\t%s@%d\t%s:%s\t%s\n", e.OccurredAt.UTC().Format(time.DateTime), e.Type,
				e.StreamID, e.StreamVersion, e.ActorType, e.ActorID, e.OrganizationID)
			rows++
		}
		if table != nil {
			// Per page: --all over a long history shows rows as they come.
			if err := table.Flush(); err != nil {
				return err
			}
		}
		if !*all || page.Next == "" {
			if table != nil && rows == 0 {
				fmt.Fprintln(os.Stderr, "no events match")
			}
			if page.Next != "" {
				fmt.Fprintln(os.Stderr, "next page: --all, or after", page.Next)
			}
			return nil
		}
		q.Set("after", page.Next)
	}
}

// historyRow holds the members of a history event that the table shows.
type historyRow struct {
	OrganizationID string    `json:"organization_id"`
	StreamID       string    `json:"stream_id"`
	StreamVersion  int64     `json:"stream_version"`
	Type           string    `json:"type"`
	ActorID        string    `json:"actor_id"`
	ActorType      string    `json:"actor_type"`
	OccurredAt     time.Time `json:"occurred_at"`
}

// replay starts a rebuild and waits until the new generation serves.
func replay(args []string) error {
	if len(args) != 1 {
		return fmt.Errorf("usage: platformctl replay PROJECTION")
	}
	name := args[0]
	body, status, err := do(http.MethodPost, serviceURL("ops")+"/api/projections/"+url.PathEscape(name)+"/replay", nil, nil)
	if err != nil {
		return err
	}
	if status != http.StatusAccepted {
		return fmt.Errorf("replay answered %d: %s", status, body)
	}
	var started struct {
		Generation int `json:"generation"`
	}
	if err := json.Unmarshal(body, &started); err != nil {
		return err
	}
	fmt.Printf("rebuilding %s into generation %d from offset zero; the current generation serves meanwhile\n", name, started.Generation)
	for deadline := time.Now().Add(30 * time.Minute); time.Now().Before(deadline); time.Sleep(time.Second) {
		body, status, err := do(http.MethodGet, serviceURL("ops")+"/api/projections", nil, nil)
		if err != nil || status != http.StatusOK {
			continue
		}
		var list struct {
			Generations []struct {
				Projection string `json:"projection"`
				Generation int    `json:"generation"`
				State      string `json:"state"`
			} `json:"generations"`
		}
		if json.Unmarshal(body, &list) != nil {
			continue
		}
		for _, g := range list.Generations {
			if g.Projection == name && g.Generation == started.Generation && g.State == "active" {
				fmt.Printf("generation %d of %s is active\n", g.Generation, name)
				return nil
			}
		}
	}
	return fmt.Errorf("generation %d of %s did not become active in time", started.Generation, name)
}
