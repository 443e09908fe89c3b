package main

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"text/tabwriter"
)

func actions(args []string) error {
	if len(args) == 0 {
		return fmt.Errorf("usage: platformctl actions list|get|validate|plan|call")
	}
	confirm := slices.Contains(args, "--confirm")
	args = slices.DeleteFunc(slices.Clone(args), func(s string) bool { return s == "--confirm" })
	input := []byte("{}")
	if len(args) >= 3 {
		input = []byte(args[2])
	}
	switch args[0] {
	case "help", "-h", "-help", "--help":
		fmt.Print(usage)
		return nil
	case "list":
		all, err := fetchActions()
		if err != nil {
			return err
		}
		w := tabwriter.NewWriter(os.Stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(w, "SERVICE\tACTION\tMETHOD\tPATH\tPERMISSION\tAGENT")
		for _, d := range all {
			fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\n", d.Service, d.Name, d.Method, d.Path, d.Permission, d.AgentAccess)
		}
		return w.Flush()
	case "get", "validate", "plan", "call":
		if len(args) < 2 {
			return fmt.Errorf("usage: platformctl actions %s NAME [JSON]", args[0])
		}
	default:
		return fmt.Errorf("unknown actions subcommand %q", args[0])
	}
	d, err := findAction(args[1])
	if err != nil {
		return err
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", "  ")
	switch args[0] {
	case "get":
		return enc.Encode(d.Action)
	case "validate":
		if err := validate(d, input); err != nil {
			return err
		}
		fmt.Println("valid")
		return nil
	}
	if err := validate(d, input); err != nil {
		return err
	}
	p, err := d.Plan(input)
	if err != nil {
		return err
	}
	if args[0] == "plan" {
		return enc.Encode(p)
	}
	if p.RequiresConfirmation && !confirm {
		return fmt.Errorf("%s changes state and requires confirmation: run it again with --confirm (see: platformctl actions plan %s)", d.Name, args[1])
	}
	body, status, err := do(p.Method, p.URL, p.Body, nil)
	if err != nil {
		return err
	}
	os.Stdout.Write(body)
	if status >= 400 {
		return fmt.Errorf("%s answered %d", d.Name, status)
	}
	return nil
}
