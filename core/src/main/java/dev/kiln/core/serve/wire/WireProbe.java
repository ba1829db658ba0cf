package dev.kiln.core.serve.wire;

import static dev.kiln.core.serve.wire.WireTypes.constant;
import static dev.kiln.core.serve.wire.WireTypes.duration;
import static dev.kiln.core.serve.wire.WireTypes.list;
import static dev.kiln.core.serve.wire.WireTypes.ms;
import static dev.kiln.core.serve.wire.WireTypes.name;
import static dev.kiln.core.serve.wire.WireTypes.path;
import static dev.kiln.core.serve.wire.WireTypes.pathOf;
import static dev.kiln.core.serve.wire.WireTypes.pathText;
import static dev.kiln.core.serve.wire.WireTypes.pathList;
import static dev.kiln.core.serve.wire.WireTypes.paths;

import com.fasterxml.jackson.annotation.JsonProperty;
import dev.kiln.core.engine.SavedRun;
import dev.kiln.core.serve.wire.WireTypes.Codec;
import dev.kiln.core.startup.Bytecode;
import dev.kiln.core.startup.BytecodeMode;
import dev.kiln.core.startup.BytecodeReport;
import dev.kiln.core.startup.FetchPhase;
import dev.kiln.core.startup.Conversation;
import dev.kiln.core.startup.HandshakeOrder;
import dev.kiln.core.startup.Launcher;
import dev.kiln.core.startup.Outcome;
import dev.kiln.core.startup.ProbeEvent;
import dev.kiln.core.startup.ProbeReport;
import dev.kiln.core.startup.PythonEnvironment;
import dev.kiln.core.startup.ServerConfig;
import dev.kiln.core.startup.ServerResult;
import dev.kiln.core.startup.Timeline;
import java.net.URI;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The startup routes' wire types ({@code servers}, {@code probe/runs}, {@code bytecode}, a probe's and a precompile's
 * result) and the {@code probe_*} frames. Naming rule: {@link WireTypes}. A saved run's document
 * ({@code probe/runs/{id}}) and the sweep are served as stored (the probe-run file format), not through these.
 */
final class WireProbe {
    private WireProbe() {
    }

    /** {@code GET /api/v1/servers}: one server of servers.json, secrets redacted ({@link Wire#redacted}). */
    record Server(@JsonProperty("name") String name, @JsonProperty("transport") String transport,
            @JsonProperty("command") @Nullable String command, @JsonProperty("args") List<String> args,
            @JsonProperty("env") Map<String, String> env, @JsonProperty("cwd") @Nullable String cwd,
            @JsonProperty("url") @Nullable String url, @JsonProperty("headers") Map<String, String> headers,
            @JsonProperty("startup_timeout_ms") @Nullable Long startupTimeoutMs, @JsonProperty("enabled") boolean enabled,
            @JsonProperty("source") @Nullable String source) {
        static Server of(ServerConfig s) {
            return new Server(s.name(), WireTypes.name(s.transport()), s.command(), s.args(), s.env(), path(s.cwd()),
                    s.url() == null ? null : s.url().toString(), s.headers(), ms(s.startupTimeout()), s.enabled(),
                    path(s.source()));
        }

        ServerConfig core() {
            return new ServerConfig(name, constant(ServerConfig.Transport.class, transport), command, list(args),
                    env == null ? Map.of() : env, path(cwd), url == null ? null : URI.create(url),
                    headers == null ? Map.of() : headers, duration(startupTimeoutMs), enabled, path(source));
        }
    }

    /** {@code GET /api/v1/probe/runs}: one saved run (newest first). */
    record Run(@JsonProperty("id") String id, @JsonProperty("started_at") Instant startedAt) {
        static Run of(SavedRun r) {
            return new Run(r.id(), r.startedAt());
        }

        SavedRun core() {
            return new SavedRun(id, startedAt);
        }
    }

    /** When each step of one server's start happened, in ms after its spawn; null for a step that did not happen. */
    record Steps(@JsonProperty("spawn_ms") @Nullable Double spawnMs,
            @JsonProperty("first_stdout_ms") @Nullable Double firstStdoutMs,
            @JsonProperty("first_stderr_ms") @Nullable Double firstStderrMs,
            @JsonProperty("initialized_ms") @Nullable Double initializedMs,
            @JsonProperty("tools_listed_ms") @Nullable Double toolsListedMs, @JsonProperty("exit_ms") @Nullable Double exitMs,
            @JsonProperty("fetch_end_ms") @Nullable Double fetchEndMs) {
        static Steps of(Timeline t) {
            return new Steps(t.spawnMs(), t.firstStdoutMs(), t.firstStderrMs(), t.initializedMs(), t.toolsListedMs(),
                    t.exitMs(), t.fetchEndMs());
        }

        Timeline core() {
            return new Timeline(spawnMs, firstStdoutMs, firstStderrMs, initializedMs, toolsListedMs, exitMs, fetchEndMs);
        }
    }

    /**
     * The fetch phase of a server's start ({@link FetchPhase}); the shape of a saved run's {@code fetch}. {@code runtime}
     * and {@code fetches} follow from the launcher and are sent for readers that do not know every launcher.
     */
    record Fetch(@JsonProperty("launcher") String launcher, @JsonProperty("runtime") String runtime,
            @JsonProperty("fetches") boolean fetches, @JsonProperty("fetch_ms") @Nullable Double fetchMs,
            @JsonProperty("downloaded") String downloaded, @JsonProperty("evidence") String evidence) {
        static @Nullable Fetch of(@Nullable FetchPhase f) {
            return f == null ? null : new Fetch(name(f.launcher()), f.launcher().runtime().label(), f.launcher().fetches(),
                    f.fetchMs(), name(f.downloaded()), f.evidence());
        }

        FetchPhase core() {
            return new FetchPhase(constant(Launcher.class, launcher), fetchMs, constant(FetchPhase.Downloaded.class, downloaded),
                    evidence == null ? "" : evidence);
        }
    }

    /** One server's start in one run. */
    record Result(@JsonProperty("name") String name, @JsonProperty("transport") String transport, @JsonProperty("run") int run,
            @JsonProperty("outcome") String outcome, @JsonProperty("exit_code") @Nullable Integer exitCode,
            @JsonProperty("reason") String reason, @JsonProperty("protocol_version") @Nullable String protocolVersion,
            @JsonProperty("initialize_ms") @Nullable Double initializeMs, @JsonProperty("tools_ms") @Nullable Double toolsMs,
            @JsonProperty("tools") int tools, @JsonProperty("timeout_ms") long timeoutMs,
            @JsonProperty("timeline") Steps timeline, @JsonProperty("stderr_tail") List<String> stderrTail,
            @JsonProperty("fetch") @Nullable Fetch fetch, @JsonProperty("conversation") @Nullable Talk conversation) {
        static Result of(ServerResult r) {
            return new Result(r.name(), WireTypes.name(r.transport()), r.run(), WireTypes.name(r.outcome()), r.exitCode(), r.reason(),
                    r.protocolVersion(), r.initializeMs(), r.toolsMs(), r.tools(), r.timeoutMs(), Steps.of(r.timeline()),
                    r.stderrTail(), Fetch.of(r.fetch()), Talk.of(r.conversation()));
        }

        ServerResult core() {
            return new ServerResult(name, constant(ServerConfig.Transport.class, transport), run, constant(Outcome.class, outcome),
                    exitCode, reason, protocolVersion, initializeMs, toolsMs, tools, timeoutMs, timeline.core(),
                    list(stderrTail), fetch == null ? null : fetch.core(), conversation == null ? Conversation.NONE : conversation.core());
        }
    }

    /** A server's conversation: its handshake's JSON-RPC messages and the end of its stderr ({@link Conversation}). */
    record Talk(@JsonProperty("messages") List<TalkMessage> messages, @JsonProperty("messages_dropped") int messagesDropped,
            @JsonProperty("stderr") String stderr, @JsonProperty("stderr_bytes") long stderrBytes,
            @JsonProperty("stderr_truncated") boolean stderrTruncated) {
        static Talk of(Conversation c) {
            return new Talk(c.messages().stream().map(TalkMessage::of).toList(), c.messagesDropped(), c.stderr(), c.stderrBytes(),
                    c.stderrTruncated());
        }

        Conversation core() {
            return new Conversation(list(messages).stream().map(TalkMessage::core).toList(), messagesDropped, stderr, stderrBytes,
                    stderrTruncated);
        }
    }

    /** One message of a conversation; {@code at_ms} is after the server's spawn, {@code json} the message as it crossed. */
    record TalkMessage(@JsonProperty("direction") String direction, @JsonProperty("method") @Nullable String method,
            @JsonProperty("id") @Nullable String id, @JsonProperty("at_ms") double atMs, @JsonProperty("json") String json,
            @JsonProperty("clipped") boolean clipped) {
        static TalkMessage of(Conversation.Message m) {
            return new TalkMessage(m.direction().label(), m.method(), m.id(), m.atMs(), m.json(), m.clipped());
        }

        Conversation.Message core() {
            return new Conversation.Message(Conversation.Direction.of(direction), method, id, atMs, json, clipped);
        }
    }

    /** The CPU share a probe ran under. */
    record CpuShare(@JsonProperty("share") double share, @JsonProperty("mechanism") String mechanism,
            @JsonProperty("group") String group, @JsonProperty("cpu_ms") @Nullable Double cpuMs,
            @JsonProperty("cpu_per_wall") @Nullable Double cpuPerWall, @JsonProperty("description") String description) {
        static @Nullable CpuShare of(ProbeReport.@Nullable CpuLimit c) {
            return c == null ? null : new CpuShare(c.share(), c.mechanism(), c.group(), c.cpuMs(), c.cpuPerWall(), c.description());
        }

        ProbeReport.CpuLimit core() {
            return new ProbeReport.CpuLimit(share, mechanism, group, cpuMs, cpuPerWall, description);
        }
    }

    /** A probe action's result. */
    record Report(@JsonProperty("started_at") Instant startedAt, @JsonProperty("cpus") String cpus,
            @JsonProperty("repeat") int repeat, @JsonProperty("bytecode") String bytecode,
            @JsonProperty("results") List<Result> results, @JsonProperty("cpu_limit") @Nullable CpuShare cpuLimit,
            @JsonProperty("handshake") String handshake) {
        static Report of(ProbeReport r) {
            return new Report(r.startedAt(), r.cpus(), r.repeat(), name(r.bytecode()), r.results().stream().map(Result::of).toList(),
                    CpuShare.of(r.cpuLimit()), name(r.handshake()));
        }

        ProbeReport core() {
            return new ProbeReport(startedAt, cpus, repeat, constant(BytecodeMode.class, bytecode),
                    list(results).stream().map(Result::core).toList(), cpuLimit == null ? null : cpuLimit.core(),
                    constant(HandshakeOrder.class, handshake));
        }
    }

    /** The Python environment a bytecode audit looked at. */
    record Environment(@JsonProperty("interpreter") String interpreter, @JsonProperty("version") String version,
            @JsonProperty("cache_tag") String cacheTag, @JsonProperty("magic") String magic,
            @JsonProperty("roots") List<String> roots, @JsonProperty("resolved_from") String resolvedFrom) {
        static Environment of(PythonEnvironment e) {
            return new Environment(pathText(e.interpreter()), e.version(), e.cacheTag(), e.magic(), paths(e.roots()), e.resolvedFrom());
        }

        PythonEnvironment core() {
            return new PythonEnvironment(pathOf(interpreter), version, cacheTag, magic, pathList(roots), resolvedFrom);
        }
    }

    /** {@code GET /api/v1/bytecode?server=S}: the audit. */
    record Audit(@JsonProperty("environment") Environment environment, @JsonProperty("sources") long sources,
            @JsonProperty("fresh") long fresh, @JsonProperty("stale") long stale, @JsonProperty("missing") long missing,
            @JsonProperty("unchecked_hash") long uncheckedHash, @JsonProperty("examples") List<String> examples) {
        static Audit of(BytecodeReport r) {
            return new Audit(Environment.of(r.environment()), r.sources(), r.fresh(), r.stale(), r.missing(), r.uncheckedHash(),
                    r.examples());
        }

        BytecodeReport core() {
            return new BytecodeReport(environment.core(), sources, fresh, stale, missing, uncheckedHash, list(examples));
        }
    }

    /** A precompile action's result. */
    record Compile(@JsonProperty("before") Audit before, @JsonProperty("after") Audit after, @JsonProperty("mode") String mode,
            @JsonProperty("exit_code") int exitCode, @JsonProperty("output") List<String> output,
            @JsonProperty("elapsed_ms") double elapsedMs) {
        static Compile of(Bytecode.CompileResult c) {
            return new Compile(Audit.of(c.before()), Audit.of(c.after()), name(c.mode()), c.exitCode(), c.output(), c.elapsedMs());
        }

        Bytecode.CompileResult core() {
            return new Bytecode.CompileResult(before.core(), after.core(), constant(Bytecode.InvalidationMode.class, mode),
                    exitCode, list(output), elapsedMs);
        }
    }

    /** Frame {@code probe_run_started}. */
    record RunStarted(@JsonProperty("at") Instant at, @JsonProperty("run") int run, @JsonProperty("runs") int runs,
            @JsonProperty("servers") int servers) {
        static RunStarted of(ProbeEvent.RunStarted e) {
            return new RunStarted(e.at(), e.run(), e.runs(), e.servers());
        }

        ProbeEvent.RunStarted core() {
            return new ProbeEvent.RunStarted(at, run, runs, servers);
        }
    }

    /** Frame {@code probe_spawned}. */
    record Spawned(@JsonProperty("at") Instant at, @JsonProperty("server") String server, @JsonProperty("run") int run,
            @JsonProperty("offset_ms") double offsetMs, @JsonProperty("pid") long pid) {
        static Spawned of(ProbeEvent.Spawned e) {
            return new Spawned(e.at(), e.server(), e.run(), e.offsetMs(), e.pid());
        }

        ProbeEvent.Spawned core() {
            return new ProbeEvent.Spawned(at, server, run, offsetMs, pid);
        }
    }

    /** Frame {@code probe_first_output}. */
    record FirstOutput(@JsonProperty("at") Instant at, @JsonProperty("server") String server, @JsonProperty("run") int run,
            @JsonProperty("offset_ms") double offsetMs, @JsonProperty("stderr") boolean stderr) {
        static FirstOutput of(ProbeEvent.FirstOutput e) {
            return new FirstOutput(e.at(), e.server(), e.run(), e.offsetMs(), e.stderr());
        }

        ProbeEvent.FirstOutput core() {
            return new ProbeEvent.FirstOutput(at, server, run, offsetMs, stderr);
        }
    }

    /** Frame {@code probe_initialized}. */
    record Initialized(@JsonProperty("at") Instant at, @JsonProperty("server") String server, @JsonProperty("run") int run,
            @JsonProperty("offset_ms") double offsetMs, @JsonProperty("initialize_ms") double initializeMs,
            @JsonProperty("protocol_version") String protocolVersion) {
        static Initialized of(ProbeEvent.Initialized e) {
            return new Initialized(e.at(), e.server(), e.run(), e.offsetMs(), e.initializeMs(), e.protocolVersion());
        }

        ProbeEvent.Initialized core() {
            return new ProbeEvent.Initialized(at, server, run, offsetMs, initializeMs, protocolVersion);
        }
    }

    /** Frame {@code probe_tools_listed}. */
    record ToolsListed(@JsonProperty("at") Instant at, @JsonProperty("server") String server, @JsonProperty("run") int run,
            @JsonProperty("offset_ms") double offsetMs, @JsonProperty("tools") int tools) {
        static ToolsListed of(ProbeEvent.ToolsListed e) {
            return new ToolsListed(e.at(), e.server(), e.run(), e.offsetMs(), e.tools());
        }

        ProbeEvent.ToolsListed core() {
            return new ProbeEvent.ToolsListed(at, server, run, offsetMs, tools);
        }
    }

    /** Frame {@code probe_exited}. */
    record Exited(@JsonProperty("at") Instant at, @JsonProperty("server") String server, @JsonProperty("run") int run,
            @JsonProperty("offset_ms") double offsetMs, @JsonProperty("exit_code") int exitCode) {
        static Exited of(ProbeEvent.Exited e) {
            return new Exited(e.at(), e.server(), e.run(), e.offsetMs(), e.exitCode());
        }

        ProbeEvent.Exited core() {
            return new ProbeEvent.Exited(at, server, run, offsetMs, exitCode);
        }
    }

    /** Frame {@code probe_finished}: one server's result in one run. */
    record Finished(@JsonProperty("at") Instant at, @JsonProperty("server") String server, @JsonProperty("run") int run,
            @JsonProperty("result") Result result) {
        static Finished of(ProbeEvent.Finished e) {
            return new Finished(e.at(), e.server(), e.run(), Result.of(e.result()));
        }

        ProbeEvent.Finished core() {
            return new ProbeEvent.Finished(at, server, run, result.core());
        }
    }

    static final List<Codec<?, ?>> CODECS = List.of(
            Codec.of(ServerConfig.class, Server.class, Server::of, Server::core),
            Codec.of(SavedRun.class, Run.class, Run::of, Run::core),
            Codec.of(ProbeReport.class, Report.class, Report::of, Report::core),
            Codec.of(BytecodeReport.class, Audit.class, Audit::of, Audit::core),
            Codec.of(Bytecode.CompileResult.class, Compile.class, Compile::of, Compile::core),
            Codec.of(ProbeEvent.RunStarted.class, RunStarted.class, RunStarted::of, RunStarted::core),
            Codec.of(ProbeEvent.Spawned.class, Spawned.class, Spawned::of, Spawned::core),
            Codec.of(ProbeEvent.FirstOutput.class, FirstOutput.class, FirstOutput::of, FirstOutput::core),
            Codec.of(ProbeEvent.Initialized.class, Initialized.class, Initialized::of, Initialized::core),
            Codec.of(ProbeEvent.ToolsListed.class, ToolsListed.class, ToolsListed::of, ToolsListed::core),
            Codec.of(ProbeEvent.Exited.class, Exited.class, Exited::of, Exited::core),
            Codec.of(ProbeEvent.Finished.class, Finished.class, Finished::of, Finished::core));
}
