package dashboard

import (
	"context"
	"errors"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/platform/backend/domain/principal"
	httpapi "github.com/platform/backend/http"
)

// Queue is the action queue (/actions, GET /api/action-items): what a
// person must resolve in every app the caller may see, read through each
// module's ActionItems declaration in parallel, each within the app budget.
// It is not limited to installed apps: an item needing a person stays one
// whether or not the app's tile is on the dashboard.
type Queue struct {
	Success bool         `json:"success"`
	Items   []QueueItem  `json:"items"`
	Sources []QueueState `json:"sources"`
}

// QueueItem is one item with its app and the link where it is resolved.
type QueueItem struct {
	AppID   string `json:"appId"`
	AppName string `json:"appName"`
	httpapi.ActionItem
	URL string `json:"url"`
}

// QueueState says whether an app's items could be read (ok, timeout,
// unavailable, error): an app that failed is named rather than silently
// showing nothing.
type QueueState struct {
	AppID string `json:"appId"`
	State string `json:"state"`
	Count int    `json:"count"`
}

// severityRank orders items: critical first.
func severityRank(s string) int { return -slices.Index(httpapi.ItemSeverities, s) }

// ActionQueue reads every app's action items for the caller at now.
func (l *Launcher) ActionQueue(ctx context.Context, p principal.Principal, now time.Time) Queue {
	var sources []App
	for _, a := range l.Apps() {
		if a.ActionItems != nil && p.Allows(principal.Qualify(a.AppID, a.ActionItems.Permission)) {
			sources = append(sources, a)
		}
	}
	out := Queue{Success: true, Items: []QueueItem{}, Sources: make([]QueueState, len(sources))}
	items := make([][]QueueItem, len(sources))
	var wg sync.WaitGroup
	for i, a := range sources {
		wg.Add(1)
		go func() {
			defer wg.Done()
			actx, cancel := context.WithTimeout(ctx, l.cfg.AppBudget)
			defer cancel()
			list, err := a.ActionItems.Load(actx, a.AppID, p, now)
			out.Sources[i] = QueueState{AppID: a.AppID, State: "ok", Count: len(list)}
			if err != nil {
				state := failure(err)
				if errors.Is(actx.Err(), context.DeadlineExceeded) {
					state = "timeout"
				}
				out.Sources[i].State = state
				return
			}
			for _, it := range list {
				items[i] = append(items[i], QueueItem{AppID: a.AppID, AppName: a.Name, ActionItem: it, URL: join(a.URL, it.Path)})
			}
		}()
	}
	wg.Wait()
	for _, list := range items {
		out.Items = append(out.Items, list...)
	}
	sort.SliceStable(out.Items, func(i, j int) bool {
		a, b := out.Items[i], out.Items[j]
		if severityRank(a.Severity) != severityRank(b.Severity) {
			return severityRank(a.Severity) < severityRank(b.Severity)
		}
		switch {
		case a.At == nil || b.At == nil:
			return a.At != nil
		case !a.At.Equal(*b.At):
			return a.At.Before(*b.At)
		}
		return a.ObjectID < b.ObjectID
	})
	return out
}

func join(base, path string) string {
	if path == "" {
		return base
	}
	return strings.TrimRight(base, "/") + "/" + strings.TrimLeft(path, "/")
}
