package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"time"
)

func historyCmd(args []string) error {
	fs := flag.NewFlagSet("history", flag.ContinueOnError)
	stream := fs.String("stream", "", "only this stream id")
	typ := fs.String("type", "", "only this event type")
	since := fs.String("since", "", "from this time (RFC 3339)")
	until := fs.String("until", "", "before this time (RFC 3339)")
	limit := fs.Int("limit", 100, "events per page")
	all := fs.Bool("all", false, "follow the cursor to the end")
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
		for _, e := range page.Events {
			fmt.Println(string(e))
		}
		if !*all || page.Next == "" {
			if page.Next != "" {
				fmt.Fprintln(os.Stderr, "next page: --all, or after", page.Next)
			}
			return nil
		}
		q.Set("after", page.Next)
	}
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
				Projection string
				Generation int
				State      string
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
