package publishing

import (
	"fmt"
	"slices"
	"time"
	"unicode/utf8"

	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/text"
)

// Bounds of a post (HTTP schemas read the same numbers).
const (
	MaxText         = text.MaxMessage // characters of one item's copy
	MaxMediaPerPost = 10
	MaxThreadItems  = 25 // the post and its replies
	MaxTargets      = 12
	// ScheduleGrace is how far in the past a publish time may be: a form
	// that says "now" arrives a little later.
	ScheduleGrace = 5 * time.Minute
)

// TargetSpec is a target as a client names it.
type TargetSpec struct {
	Network   string
	AccountID *string
	PageID    *string
}

func (s TargetSpec) key() string {
	return s.Network + "\x00" + deref(s.AccountID) + "\x00" + deref(s.PageID)
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// Draft is a post's content and schedule as a client sends it.
type Draft struct {
	Items     []Item
	Targets   []TargetSpec
	PublishAt *time.Time
	// Schedule: true puts the targets on the schedule (PublishAt needed),
	// false keeps them draft.
	Schedule bool
}

// itemPointer names an item's member in the HTTP input: the first item is
// the top-level text, media and link; the others are thread/<i-1>.
func itemPointer(i int, member string) string {
	if i == 0 {
		return "/" + member
	}
	return fmt.Sprintf("/thread/%d/%s", i-1, member)
}

func checkItems(fields []errs.Field, items []Item) []errs.Field {
	if len(items) == 0 {
		return append(fields, errs.Field{Pointer: "/text", Detail: "a post needs text or media"})
	}
	if len(items) > MaxThreadItems {
		fields = append(fields, errs.Field{Pointer: "/thread", Detail: fmt.Sprintf("a thread has at most %d items", MaxThreadItems)})
	}
	for i, it := range items {
		if it.Text == "" && len(it.Media) == 0 {
			fields = append(fields, errs.Field{Pointer: itemPointer(i, "text"), Detail: "an item needs text or media"})
		}
		fields = text.MultiLine(fields, itemPointer(i, "text"), it.Text, MaxText)
		if len(it.Media) > MaxMediaPerPost {
			fields = append(fields, errs.Field{Pointer: itemPointer(i, "media"), Detail: fmt.Sprintf("at most %d media", MaxMediaPerPost)})
		}
		for j, m := range it.Media {
			if m == "" || utf8.RuneCountInString(m) > text.MaxID || !text.IsLine(m) {
				fields = append(fields, errs.Field{Pointer: fmt.Sprintf("%s/%d", itemPointer(i, "media"), j), Detail: "must be a media id"})
			}
		}
		if it.Link != nil {
			fields = text.URL(fields, itemPointer(i, "link"), *it.Link, text.URLRules{})
		}
	}
	return fields
}

func checkTargets(fields []errs.Field, specs []TargetSpec) []errs.Field {
	if len(specs) == 0 || len(specs) > MaxTargets {
		return append(fields, errs.Field{Pointer: "/targets", Detail: fmt.Sprintf("a post has 1 to %d targets", MaxTargets)})
	}
	seen := map[string]bool{}
	for i, s := range specs {
		if !slices.Contains(Networks, s.Network) {
			fields = append(fields, errs.Field{Pointer: fmt.Sprintf("/targets/%d/network", i), Detail: "must be one of network_1..network_6"})
		}
		for member, v := range map[string]*string{"accountId": s.AccountID, "pageId": s.PageID} {
			if v != nil && (*v == "" || utf8.RuneCountInString(*v) > text.MaxID || !text.IsLine(*v)) {
				fields = append(fields, errs.Field{Pointer: fmt.Sprintf("/targets/%d/%s", i, member), Detail: "must be an account or page id"})
			}
		}
		if seen[s.key()] {
			fields = append(fields, errs.Field{Pointer: fmt.Sprintf("/targets/%d", i), Detail: "names the same account twice"})
		}
		seen[s.key()] = true
	}
	return fields
}

func checkSchedule(fields []errs.Field, d Draft, now time.Time) []errs.Field {
	switch {
	case d.Schedule && d.PublishAt == nil:
		fields = append(fields, errs.Field{Pointer: "/publishAt", Detail: "a scheduled post needs a publish time"})
	case d.Schedule && d.PublishAt.Before(now.Add(-ScheduleGrace)):
		fields = append(fields, errs.Field{Pointer: "/publishAt", Detail: "must not be in the past"})
	}
	return fields
}
