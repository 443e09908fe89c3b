package studio

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/platform/backend/commands"
	"github.com/platform/backend/commands/jobs"
	"github.com/platform/backend/commands/reactor"
	domjobs "github.com/platform/backend/domain/jobs"
	domain "github.com/platform/backend/domain/studio"
	"github.com/platform/backend/eventstore"
	"github.com/platform/backend/internal/media"
)

// JobsConfig tunes the studio's durable jobs (platform renders, generation
// requests).
type JobsConfig struct {
	// Media bounds ffmpeg (FFMPEG, FFPROBE; 2 threads, 15 minutes).
	Media media.Config
	// RenderConcurrency and GenerationConcurrency are how many renders and
	// generation requests a worker process runs at once
	// (STUDIO_RENDER_CONCURRENCY 1: a render takes ffmpeg's two threads;
	// STUDIO_GENERATION_CONCURRENCY 8: they mostly wait on providers).
	RenderConcurrency     int
	GenerationConcurrency int
	// Lease is how long an attempt is its worker's without a heartbeat
	// (STUDIO_JOB_LEASE, 1m): a dead worker's job is probed about one lease
	// after it died.
	Lease time.Duration
	// MaxAttempts and RetryBackoff are the retry policy of failures worth
	// retrying (STUDIO_JOB_MAX_ATTEMPTS 3, STUDIO_JOB_RETRY_BACKOFF 30s
	// doubling to 15m).
	MaxAttempts  int
	RetryBackoff time.Duration
	// RenderTimeout bounds one render attempt (30m: ffmpeg's own 15 minutes
	// plus loading the assets and storing the output); GenerationTimeout
	// one generation attempt (10m).
	RenderTimeout     time.Duration
	GenerationTimeout time.Duration
}

func (c JobsConfig) WithDefaults() JobsConfig {
	c.Media = c.Media.WithDefaults()
	if c.RenderConcurrency == 0 {
		c.RenderConcurrency = 1
	}
	if c.GenerationConcurrency == 0 {
		c.GenerationConcurrency = 8
	}
	if c.Lease == 0 {
		c.Lease = time.Minute
	}
	if c.MaxAttempts == 0 {
		c.MaxAttempts = 3
	}
	if c.RetryBackoff == 0 {
		c.RetryBackoff = 30 * time.Second
	}
	if c.RenderTimeout == 0 {
		c.RenderTimeout = 30 * time.Minute
	}
	if c.GenerationTimeout == 0 {
		c.GenerationTimeout = 10 * time.Minute
	}
	return c
}

func (c JobsConfig) Validate() error {
	var problems []error
	if c.RenderConcurrency < 1 || c.GenerationConcurrency < 1 {
		problems = append(problems, errors.New("STUDIO_RENDER_CONCURRENCY and STUDIO_GENERATION_CONCURRENCY must be positive"))
	}
	if c.Lease < 100*time.Millisecond {
		problems = append(problems, errors.New("STUDIO_JOB_LEASE must be at least 100ms"))
	}
	if c.MaxAttempts < 1 || c.RetryBackoff < 0 {
		problems = append(problems, errors.New("STUDIO_JOB_MAX_ATTEMPTS must be positive and STUDIO_JOB_RETRY_BACKOFF not negative"))
	}
	if c.RenderTimeout <= 0 || c.GenerationTimeout <= 0 {
		problems = append(problems, errors.New("the job timeouts must be positive"))
	}
	return errors.Join(append(problems, c.Media.Validate())...)
}

// Jobs are the studio's kinds of durable job (the job kernel's): a
// platform render (domain.KindRender) and a generation request
// (domain.KindGenerate), each with the id of the studio object it runs.
type Jobs struct {
	h        *Handlers
	cfg      JobsConfig
	gateway  Gateway
	render   *jobs.Def[domain.RenderJob, domain.RenderOutput]
	generate *jobs.Def[domain.Generation, domain.GenerationOutput]
}

// NewJobs defines the studio's kinds on the platform's job commands (its
// module lists Kinds in Parts.Jobs) and lets the handlers request them.
// gateway is the usage gateway's client (nil: generation jobs fail with
// dependency_unavailable, retried by the policy).
func NewJobs(h *Handlers, cmds *jobs.Commands, gateway Gateway, cfg JobsConfig) (*Jobs, error) {
	cfg = cfg.WithDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	j := &Jobs{h: h, cfg: cfg, gateway: gateway}
	policy := domjobs.RetryPolicy{MaxAttempts: cfg.MaxAttempts, Backoff: cfg.RetryBackoff}
	var err error
	j.render, err = jobs.Define(cmds, jobs.Spec[domain.RenderJob, domain.RenderOutput]{Name: domain.KindRender, Do: j.renderDo,
		Probe: j.renderProbe, Retry: policy, Lease: cfg.Lease, Timeout: cfg.RenderTimeout, Concurrency: cfg.RenderConcurrency})
	if err != nil {
		return nil, err
	}
	j.generate, err = jobs.Define(cmds, jobs.Spec[domain.Generation, domain.GenerationOutput]{Name: domain.KindGenerate,
		Do: j.generateDo, Probe: j.generateProbe, Retry: policy, Lease: cfg.Lease, Timeout: cfg.GenerationTimeout,
		Concurrency: cfg.GenerationConcurrency})
	if err != nil {
		return nil, err
	}
	h.jobs = j
	return j, nil
}

// Kinds are the kinds the module declares (Parts.Jobs).
func (j *Jobs) Kinds() []jobs.Kind { return []jobs.Kind{j.render, j.generate} }

// jobMeta is the meta of a job command a studio command issues after its
// own commit: the caller's organization, actor and correlation, without
// its Idempotency-Key (which is the studio command's, on another stream);
// a job id is requested once anyway.
func jobMeta(m commands.Meta) commands.Meta {
	return commands.Meta{OrganizationID: m.OrganizationID, Actor: m.Actor, ActingUser: m.ActingUser, CorrelationID: m.CorrelationID,
		CausationID: m.CausationID}
}

// requestRender asks the kernel to run a platform render job (an external
// renderer's job is not the kernel's). Its failure is logged: the
// job_requests reactor requests it from the render job's event.
func (h *Handlers) requestRender(ctx context.Context, m commands.Meta, r domain.RenderJob) {
	if h.jobs == nil || !r.Platform() {
		return
	}
	if _, err := h.jobs.render.Request(ctx, m, r.RenderJobID, r, jobs.RequestOptions{Priority: r.Priority}); err != nil {
		h.log.Warn("studio: render job not requested yet; the job_requests reactor will", "render_job", r.RenderJobID, "err", err)
	}
}

// requestGenerationJob asks the kernel to run a generation request.
func (h *Handlers) requestGenerationJob(ctx context.Context, m commands.Meta, g domain.Generation) {
	if h.jobs == nil {
		return
	}
	if _, err := h.jobs.generate.Request(ctx, m, g.GenerationID, g, jobs.RequestOptions{}); err != nil {
		h.log.Warn("studio: generation job not requested yet; the job_requests reactor will", "generation", g.GenerationID, "err", err)
	}
}

// JobRequestsReactor names the reactor that requests the studio's jobs.
const JobRequestsReactor = "studio.job_requests"

// JobRequests is the reactor that requests the job of every platform
// render job and generation request from its creation's event, should the
// command's process have stopped before it requested it (a job id is
// requested once: the rest finds it requested).
type JobRequests struct{ j *Jobs }

var _ reactor.Reactor = JobRequests{}

func (j *Jobs) Requests() JobRequests { return JobRequests{j: j} }

func (JobRequests) Name() string       { return JobRequestsReactor }
func (JobRequests) Contexts() []string { return []string{"studio"} }
func (JobRequests) Types() []string {
	return []string{domain.RenderJobCreated, domain.GenerationRequested}
}

// React requests the job unless it is requested already (a read: the
// usual case, its command requested it), so the reactor writes nothing
// for the jobs that need nothing.
func (r JobRequests) React(ctx context.Context, e eventstore.Event) error {
	m := reactor.Meta(JobRequestsReactor, e, "job")
	switch e.Type {
	case domain.RenderJobCreated:
		p, err := eventstore.Decode[domain.RenderJobV1](e)
		if err != nil {
			return err
		}
		if !p.Job.Platform() || requested(ctx, r.j.render.Load, e.OrganizationID, p.Job.RenderJobID) {
			return nil
		}
		_, err = r.j.render.Request(ctx, m, p.Job.RenderJobID, p.Job, jobs.RequestOptions{Priority: p.Job.Priority})
		return err
	case domain.GenerationRequested:
		p, err := eventstore.Decode[domain.GenerationV1](e)
		if err != nil {
			return err
		}
		if requested(ctx, r.j.generate.Load, e.OrganizationID, p.Generation.GenerationID) {
			return nil
		}
		_, err = r.j.generate.Request(ctx, m, p.Generation.GenerationID, p.Generation, jobs.RequestOptions{})
		return err
	}
	return nil
}

// requested reports a job known to exist (an error reads as not: the
// request then decides).
func requested(ctx context.Context, load func(context.Context, string, string) (domjobs.Job, error), org, id string) bool {
	_, err := load(ctx, org, id)
	return err == nil
}

// outputNamespace derives the ids of a job's outputs (UUIDv5): a second
// attempt makes the same ids, so it replaces what a first one left, never
// adds a second.
var outputNamespace = uuid.MustParse("6f1c2d7e-3b4a-5c6d-8e9f-0a1b2c3d4e5f")

// outputID is the id of one output of a job (an asset, a plan), named by
// parts (a scene, a candidate).
func outputID(kind, jobID string, parts ...string) string {
	return uuid.NewSHA1(outputNamespace, []byte(strings.Join(append([]string{kind, jobID}, parts...), "\x00"))).String()
}
