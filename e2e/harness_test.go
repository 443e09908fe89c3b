// Package e2e runs the real binaries (platformd, platformctl) against the real
// Kafka and PostgreSQL, over HTTP and the command line, as a client would.
//
//	. .stack/env && PLATFORM_REQUIRE_INFRA=1 go test -count=1 ./e2e/
//
// TestMain builds both binaries once into a temporary directory. Each test
// gets a fresh database, its own topic prefix, free loopback ports, an
// organization with an API key made by `platformctl bootstrap`, and one or
// more platformd child processes whose output goes to a per-test log file
// that is printed when the test fails (always with E2E_SHOW_LOG=1).
package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/IBM/sarama"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/platform/backend/internal/app"
	"github.com/platform/backend/internal/module"
	"github.com/platform/backend/internal/testenv"
)

var bin struct {
	platformd, platformctl string
}

func TestMain(m *testing.M) {
	os.Exit(runMain(m))
}

func runMain(m *testing.M) int {
	dir, err := os.MkdirTemp("", "platform-e2e-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		return 1
	}
	defer os.RemoveAll(dir)
	goTool := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := os.Stat(goTool); err != nil {
		goTool = "go"
	}
	for _, name := range []string{"platformd", "platformctl"} {
		out := filepath.Join(dir, name)
		cmd := exec.Command(goTool, "build", "-o", out, "github.com/platform/backend/cmd/"+name)
		cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
		if err := cmd.Run(); err != nil {
			fmt.Fprintf(os.Stderr, "e2e: go build %s: %v\n", name, err)
			return 1
		}
	}
	bin.platformd = filepath.Join(dir, "platformd")
	bin.platformctl = filepath.Join(dir, "platformctl")
	defer stopFaultStack()
	return m.Run()
}

// Stack is one test's share of the infrastructure: a database, a topic
// prefix and the bootstrap organization.
type Stack struct {
	t           *testing.T
	DatabaseURL string
	Brokers     string
	Prefix      string
	OrgID       string
	UserID      string
	KeyID       string
	APIKey      string
	logPath     string
	log         *lockedFile
	pool        *pgxpool.Pool
}

// NewStack makes a database and a topic prefix and bootstraps an
// organization with `platformctl bootstrap`.
func NewStack(t *testing.T) *Stack {
	t.Helper()
	return newStack(t, testenv.NewDatabase(t), strings.Join(testenv.KafkaBrokers(t), ","))
}

func newStack(t *testing.T, databaseURL, brokers string) *Stack {
	t.Helper()
	s := &Stack{t: t, DatabaseURL: databaseURL, Brokers: brokers, Prefix: testenv.TopicPrefix(t, strings.Split(brokers, ","), "e2e")}
	s.logPath = filepath.Join(t.TempDir(), "platformd.log")
	f, err := os.Create(s.logPath)
	if err != nil {
		t.Fatal(err)
	}
	s.log = &lockedFile{f: f}
	t.Cleanup(func() {
		f.Close()
		if t.Failed() || os.Getenv("E2E_SHOW_LOG") != "" {
			raw, _ := os.ReadFile(s.logPath)
			t.Logf("platformd log (%s):\n%s", s.logPath, tail(raw, 64<<10))
		}
	})
	out, errOut, err := s.ctl(context.Background(), nil, "bootstrap", "--org-name", "E2E Organization", "--slug", "e2e-org", "--email", "owner@e2e.example")
	if err != nil {
		t.Fatalf("platformctl bootstrap: %v\n%s", err, errOut)
	}
	var boot struct {
		OrganizationID string `json:"organization_id"`
		UserID         string `json:"user_id"`
		KeyID          string `json:"key_id"`
		APIKey         string `json:"api_key"`
	}
	if err := json.Unmarshal([]byte(out), &boot); err != nil || boot.OrganizationID == "" || boot.APIKey == "" {
		t.Fatalf("platformctl bootstrap printed %q (%v)", out, err)
	}
	s.OrgID, s.UserID, s.KeyID, s.APIKey = boot.OrganizationID, boot.UserID, boot.KeyID, boot.APIKey
	return s
}

func tail(b []byte, n int) []byte {
	if len(b) > n {
		return append([]byte("...\n"), b[len(b)-n:]...)
	}
	return b
}

// Pool is a connection to the test's database, for checks a client cannot make.
func (s *Stack) Pool() *pgxpool.Pool {
	if s.pool == nil {
		p, err := pgxpool.New(context.Background(), s.DatabaseURL)
		if err != nil {
			s.t.Fatal(err)
		}
		s.pool = p
		// Registered after the database's own cleanup, so it runs before the drop.
		s.t.Cleanup(p.Close)
	}
	return s.pool
}

// Ctl runs platformctl as a client of srv: PLATFORM_<SERVICE>_URL of each
// service it serves, PLATFORM_API_KEY the bootstrap key.
func (srv *Server) Ctl(args ...string) (stdout, stderr string, err error) {
	env := []string{"PLATFORM_API_KEY=" + srv.s.APIKey}
	for svc := range srv.Addrs {
		env = append(env, "PLATFORM_"+strings.ToUpper(svc)+"_URL="+srv.URL(svc))
	}
	return srv.s.ctl(context.Background(), env, args...)
}

// ctl runs platformctl with the stack's environment plus env.
func (s *Stack) ctl(ctx context.Context, env []string, args ...string) (string, string, error) {
	ctx, cancel := context.WithTimeout(ctx, 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin.platformctl, args...)
	cmd.Env = append(baseEnv(), "DATABASE_URL="+s.DatabaseURL, "PLATFORM_TOPIC_PREFIX="+s.Prefix)
	cmd.Env = append(cmd.Env, env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	return stdout.String(), stderr.String(), err
}

// baseEnv is the test process's environment without the platform's own
// variables (the kernel's, and every module's: STATUS_, GATEWAY_, ...), so
// that nothing leaks into the children by accident.
func baseEnv() []string {
	prefixes := []string{"PLATFORM_", "OUTBOUND_", "OBJECTSTORE_", "TIMERS_", "RATE_LIMIT_", "KAFKA_"}
	for _, m := range app.Modules() {
		prefixes = append(prefixes, module.EnvPrefix(m))
	}
	var out []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if k == "DATABASE_URL" || k == "AUTH_BASE_URL" || slices.ContainsFunc(prefixes, func(p string) bool { return strings.HasPrefix(k, p) }) {
			continue
		}
		out = append(out, kv)
	}
	return out
}

// lockedFile lets several children (and restarts) append to one log.
type lockedFile struct {
	mu sync.Mutex
	f  *os.File
}

func (l *lockedFile) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.f.Write(p)
}

// Server is one platformd process definition; Start may run it several
// times (a restart keeps the environment and the ports).
type Server struct {
	s        *Stack
	Name     string
	Services []string          // the API services it serves
	Workers  []string          // the job workers it runs ("<context>-jobs")
	Addrs    map[string]string // service or workers -> host:port
	Env      []string

	mu     sync.Mutex
	cmd    *exec.Cmd
	exited chan struct{}
	runs   int
}

// ServerOptions tune a platformd.
type ServerOptions struct {
	Name     string   // in the log; default "platformd"
	Services []string // PLATFORM_SERVICES (services and job workers); default every one
	Env      []string // extra environment
}

// NewServer prepares a platformd on free loopback ports; Start runs it.
func (s *Stack) NewServer(o ServerOptions) *Server {
	s.t.Helper()
	if o.Name == "" {
		o.Name = "platformd"
	}
	if len(o.Services) == 0 {
		o.Services = app.Listeners()
	}
	srv := &Server{s: s, Name: o.Name, Addrs: map[string]string{}}
	for _, name := range o.Services {
		if app.IsWorker(name) {
			srv.Workers = append(srv.Workers, name)
		} else {
			srv.Services = append(srv.Services, name)
		}
	}
	srv.Env = append(baseEnv(),
		"DATABASE_URL="+s.DatabaseURL,
		"KAFKA_BROKERS="+s.Brokers,
		"PLATFORM_TOPIC_PREFIX="+s.Prefix,
		"PLATFORM_SERVICES="+strings.Join(o.Services, ","),
		"OUTBOUND_ALLOW_NETWORKS=127.0.0.0/8,::1", // check targets are loopback fakes
		"RATE_LIMIT_PER_SECOND=100000",
		"PLATFORM_KEYRING_SANDBOX=true",    // secrets sealed with the sandbox's key
		"PLATFORM_DATA_DIR="+s.t.TempDir(), // the local object store of this server
	)
	// Each module's test settings (its sandbox, loops the tests drive), the
	// same apptest applies: Module.TestEnv.
	srv.Env = append(srv.Env, module.TestEnvOf(app.Modules(), s.OrgID)...)
	for _, svc := range o.Services {
		srv.Addrs[svc] = freeAddr(s.t)
		srv.Env = append(srv.Env, app.AddrEnv(svc)+"="+srv.Addrs[svc])
	}
	srv.Env = append(srv.Env, o.Env...)
	s.t.Cleanup(srv.Stop)
	return srv
}

// StartServer is NewServer followed by Start.
func (s *Stack) StartServer(o ServerOptions) *Server {
	s.t.Helper()
	srv := s.NewServer(o)
	srv.Start()
	return srv
}

// URL is the base URL of one of the server's services.
func (srv *Server) URL(service string) string {
	a, ok := srv.Addrs[service]
	if !ok {
		srv.s.t.Fatalf("%s does not serve %s", srv.Name, service)
	}
	return "http://" + a
}

// Start runs platformd and waits until every service answers its health route.
func (srv *Server) Start() {
	t := srv.s.t
	t.Helper()
	srv.mu.Lock()
	if srv.cmd != nil {
		srv.mu.Unlock()
		t.Fatalf("%s is already running", srv.Name)
	}
	srv.runs++
	label := fmt.Sprintf("%s#%d", srv.Name, srv.runs)
	w := &prefixWriter{w: srv.s.log, prefix: "[" + label + "] "}
	fmt.Fprintf(w, "=== start %s %s\n", label, time.Now().Format(time.RFC3339Nano))
	cmd := exec.Command(bin.platformd)
	cmd.Env = srv.Env
	cmd.Stdout, cmd.Stderr = w, w
	cmd.SysProcAttr = childProcAttr() // never outlive the test binary (Linux)
	if err := cmd.Start(); err != nil {
		srv.mu.Unlock()
		t.Fatalf("start %s: %v", label, err)
	}
	exited := make(chan struct{})
	srv.cmd, srv.exited = cmd, exited
	srv.mu.Unlock()
	go func() {
		err := cmd.Wait()
		fmt.Fprintf(w, "=== exit %s %s: %v\n", label, time.Now().Format(time.RFC3339Nano), err)
		close(exited)
	}()
	client := &http.Client{Timeout: time.Second}
	deadline := time.Now().Add(30 * time.Second)
	for _, svc := range append(slices.Clone(srv.Services), srv.Workers...) {
		for {
			select {
			case <-exited:
				t.Fatalf("%s exited during start-up", label)
			default:
			}
			resp, err := client.Get(srv.URL(svc) + app.HealthPath(svc))
			if err == nil {
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode == http.StatusOK {
					break
				}
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: %s %s did not answer 200 within 30s (last error %v)", label, svc, app.HealthPath(svc), err)
			}
			time.Sleep(25 * time.Millisecond)
		}
	}
}

// Kill9 sends SIGKILL and waits for the process to be gone.
func (srv *Server) Kill9() {
	srv.signal(syscall.SIGKILL, 10*time.Second)
}

// Stop ends the process gracefully (SIGTERM), then with SIGKILL.
func (srv *Server) Stop() {
	srv.signal(syscall.SIGTERM, 10*time.Second)
}

func (srv *Server) signal(sig syscall.Signal, wait time.Duration) {
	srv.mu.Lock()
	cmd, exited := srv.cmd, srv.exited
	srv.cmd = nil
	srv.mu.Unlock()
	if cmd == nil {
		return
	}
	_ = cmd.Process.Signal(sig)
	select {
	case <-exited:
		return
	case <-time.After(wait):
	}
	_ = cmd.Process.Kill()
	<-exited
}

// Running reports whether the process is alive.
func (srv *Server) Running() bool {
	srv.mu.Lock()
	defer srv.mu.Unlock()
	if srv.cmd == nil {
		return false
	}
	select {
	case <-srv.exited:
		return false
	default:
		return true
	}
}

type prefixWriter struct {
	w      io.Writer
	prefix string
	mu     sync.Mutex
	buf    []byte
}

func (p *prefixWriter) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.buf = append(p.buf, b...)
	for {
		i := bytes.IndexByte(p.buf, '\n')
		if i < 0 {
			break
		}
		line := append([]byte(p.prefix), p.buf[:i+1]...)
		p.buf = p.buf[i+1:]
		if _, err := p.w.Write(line); err != nil {
			return len(b), err
		}
	}
	return len(b), nil
}

// Response is one HTTP answer.
type Response struct {
	Status int
	Header http.Header
	Body   []byte
}

func (r Response) String() string { return fmt.Sprintf("%d %s", r.Status, bytes.TrimSpace(r.Body)) }

// Decode decodes the body into v, failing the test on error.
func (r Response) Decode(t *testing.T, v any) {
	t.Helper()
	if err := json.Unmarshal(r.Body, v); err != nil {
		t.Fatalf("decode %s: %v", r, err)
	}
}

// Problem is the RFC 9457 error body.
type Problem struct {
	Status    int    `json:"status"`
	Code      string `json:"code"`
	Detail    string `json:"detail"`
	RequestID string `json:"request_id"`
	Errors    []struct {
		Pointer string `json:"pointer"`
	} `json:"errors"`
}

var httpClient = &http.Client{Timeout: 20 * time.Second}

// Req describes one request. Key "" sends no credential.
type Req struct {
	Method  string
	URL     string
	Key     string
	Body    any
	Headers map[string]string
}

// send performs a request and returns transport errors to the caller.
func send(ctx context.Context, c *http.Client, r Req) (Response, error) {
	var rd io.Reader
	switch b := r.Body.(type) {
	case nil:
	case []byte:
		rd = bytes.NewReader(b)
	case string:
		rd = strings.NewReader(b)
	default:
		raw, err := json.Marshal(b)
		if err != nil {
			return Response{}, err
		}
		rd = bytes.NewReader(raw)
	}
	req, err := http.NewRequestWithContext(ctx, r.Method, r.URL, rd)
	if err != nil {
		return Response{}, err
	}
	if r.Key != "" {
		req.Header.Set("Authorization", "Bearer "+r.Key)
	}
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range r.Headers {
		req.Header.Set(k, v)
	}
	resp, err := c.Do(req)
	if err != nil {
		return Response{}, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return Response{}, err
	}
	return Response{Status: resp.StatusCode, Header: resp.Header, Body: raw}, nil
}

// do performs a request and fails the test on a transport error.
func do(t *testing.T, r Req) Response {
	t.Helper()
	res, err := send(context.Background(), httpClient, r)
	if err != nil {
		t.Fatalf("%s %s: %v", r.Method, r.URL, err)
	}
	return res
}

// expect fails the test unless the answer has the status.
func expect(t *testing.T, what string, res Response, status int) Response {
	t.Helper()
	if res.Status != status {
		t.Fatalf("%s: got %s, want status %d", what, res, status)
	}
	return res
}

// expectProblem checks a problem+json answer with a status and code.
func expectProblem(t *testing.T, what string, res Response, status int, code string) Problem {
	t.Helper()
	expect(t, what, res, status)
	if ct := res.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/problem+json") {
		t.Errorf("%s: Content-Type %q, want application/problem+json", what, ct)
	}
	var p Problem
	res.Decode(t, &p)
	if p.Code != code {
		t.Fatalf("%s: code %q, want %q (%s)", what, p.Code, code, res)
	}
	return p
}

// eventually retries cond until it returns nil or the timeout passes.
func eventually(t *testing.T, timeout time.Duration, what string, cond func() error) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		err := cond()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s: %v", timeout, what, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// queryInt runs a query that returns one integer.
func queryInt(t *testing.T, pool *pgxpool.Pool, sql string, args ...any) int64 {
	t.Helper()
	var n int64
	if err := pool.QueryRow(context.Background(), sql, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return n
}

// highWaterMarks returns the next offset of every partition of a topic.
func highWaterMarks(brokers, topic string) (map[int32]int64, error) {
	cfg := sarama.NewConfig()
	cfg.Version = sarama.V3_9_0_0
	client, err := sarama.NewClient(strings.Split(brokers, ","), cfg)
	if err != nil {
		return nil, err
	}
	defer client.Close()
	parts, err := client.Partitions(topic)
	if err != nil {
		return nil, err
	}
	out := map[int32]int64{}
	for _, p := range parts {
		hw, err := client.GetOffset(topic, p, sarama.OffsetNewest)
		if err != nil {
			return nil, err
		}
		out[p] = hw
	}
	return out, nil
}

// caughtUp reports nil when every listed projection generation's
// checkpoints equal the high-water marks of its topic.
func (s *Stack) caughtUp(ctx context.Context, topic string, gens map[string]int) error {
	hw, err := highWaterMarks(s.Brokers, topic)
	if err != nil {
		return err
	}
	pool := s.Pool()
	for name, gen := range gens {
		for part, want := range hw {
			var next int64
			err := pool.QueryRow(ctx, `SELECT next_offset FROM proj_checkpoints WHERE projection=$1 AND generation=$2 AND topic=$3 AND partition=$4`,
				name, gen, topic, part).Scan(&next)
			if err != nil && want > 0 {
				return fmt.Errorf("%s g%d %s/%d: no checkpoint (high-water mark %d): %v", name, gen, topic, part, want, err)
			}
			if next != want {
				return fmt.Errorf("%s g%d %s/%d: checkpoint %d, high-water mark %d", name, gen, topic, part, next, want)
			}
		}
	}
	return nil
}

var errNotYet = errors.New("not yet")
