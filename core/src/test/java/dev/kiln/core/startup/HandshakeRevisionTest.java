package dev.kiln.core.startup;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kiln.testkit.ProcessTest;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The two MCP revisions: the probe asks {@code server/discover} (2026-07-28) first and falls back to
 * {@code initialize} — over stdio on a non-modern error or a short silence, over HTTP on a 400 — and records which
 * revision answered. The servers are small stdlib Python servers written here: one speaks only the modern revision,
 * the others only the old one.
 */
@ProcessTest
class HandshakeRevisionTest {
    @TempDir
    Path dir;
    private String marker;

    @BeforeEach
    void marker() {
        marker = "kiln-test-" + UUID.randomUUID();
    }

    /** Answers server/discover and tools/list (with _meta); rejects initialize as the SDK's modern servers do. */
    private static final String MODERN_STDIO = String.join("\n",
            "import json, sys",
            "for line in sys.stdin:",
            "    req = json.loads(line)",
            "    if 'id' not in req: continue",
            "    m = req['method']",
            "    sys.stderr.write('got ' + m + '\\n'); sys.stderr.flush()",
            "    if m == 'server/discover':",
            "        meta = req['params']['_meta']",
            "        assert meta['io.modelcontextprotocol/protocolVersion'] == '2026-07-28', meta",
            "        assert 'io.modelcontextprotocol/clientCapabilities' in meta, meta",
            "        res = {'supportedVersions': ['2026-07-28'], 'capabilities': {'tools': {}}}",
            "    elif m == 'tools/list':",
            "        assert '_meta' in req['params'], req",
            "        res = {'tools': [{'name': 'a'}, {'name': 'b'}]}",
            "    else:",
            "        print(json.dumps({'jsonrpc': '2.0', 'id': req['id'], 'error': {'code': -32022,",
            "            'message': 'this server speaks only 2026-07-28'}}), flush=True)",
            "        continue",
            "    print(json.dumps({'jsonrpc': '2.0', 'id': req['id'], 'result': res}), flush=True)");

    /** Speaks initialize only; {@code silent} ignores unknown requests instead of answering "method not found". */
    private static String oldStdio(boolean silent) {
        return String.join("\n",
                "import json, sys",
                "for line in sys.stdin:",
                "    req = json.loads(line)",
                "    if 'id' not in req: continue",
                "    m = req['method']",
                "    sys.stderr.write('got ' + m + '\\n'); sys.stderr.flush()",
                "    if m == 'initialize':",
                "        res = {'protocolVersion': req['params']['protocolVersion'], 'capabilities': {'tools': {}},",
                "               'serverInfo': {'name': 'old', 'version': '1'}}",
                "    elif m == 'tools/list':",
                "        res = {'tools': [{'name': 't'}]}",
                "    elif " + (silent ? "True" : "False") + ":",
                "        continue",
                "    else:",
                "        print(json.dumps({'jsonrpc': '2.0', 'id': req['id'], 'error': {'code': -32601,",
                "            'message': 'Method not found'}}), flush=True)",
                "        continue",
                "    print(json.dumps({'jsonrpc': '2.0', 'id': req['id'], 'result': res}), flush=True)");
    }

    private ServerConfig script(String name, String source) throws IOException {
        Path py = dir.resolve(name + ".py");
        Files.writeString(py, source + "\n");
        return ServerConfig.stdio(name, dir, "python3", List.of(py.toString(), marker), Map.of());
    }

    private static ServerResult only(ProbeReport report) {
        assertThat(report.results()).hasSize(1);
        return report.results().get(0);
    }

    @Test
    void run_modernOnlyServerOverStdio_answersServerDiscoverAndTheModernRevisionIsRecorded() throws Exception {
        ProbeReport report = StartupProbe.builder().build().run(List.of(script("modern", MODERN_STDIO)));
        ServerResult r = only(report);

        assertThat(r.outcome()).as(r.reason() + " " + r.stderrTail()).isEqualTo(Outcome.OK);
        assertThat(r.protocolVersion()).isEqualTo("2026-07-28");
        assertThat(r.tools()).isEqualTo(2);
        assertThat(r.stderrTail()).first().isEqualTo("got server/discover");
        assertThat(r.initializeMs()).isNotNull();
        assertThat(r.timeline().isOrdered()).isTrue();
        assertThat(report.toJson().path("servers").get(0).path("revision").asText()).isEqualTo("server/discover");
        assertThat(report.toJson().path("summary").path("handshake").asText()).isEqualTo("discover-first");
        assertThat(ProbeProcesses.livingWith(marker)).isEmpty();
    }

    @Test
    void run_oldOnlyServerAnsweringMethodNotFound_fallsBackToInitializeAndRecordsTheOldRevision() throws Exception {
        ProbeReport report = StartupProbe.builder().build().run(List.of(script("old", oldStdio(false))));
        ServerResult r = only(report);

        assertThat(r.outcome()).as(r.reason() + " " + r.stderrTail()).isEqualTo(Outcome.OK);
        assertThat(r.protocolVersion()).isEqualTo("2025-11-25");
        assertThat(r.tools()).isEqualTo(1);
        assertThat(r.stderrTail()).containsSubsequence("got server/discover", "got initialize", "got tools/list");
        assertThat(report.toJson().path("servers").get(0).path("revision").asText()).isEqualTo("initialize");
        // The answer timed is initialize's, the first successful one: after the discover error, not at it.
        assertThat(r.timeline().initializedMs()).isGreaterThanOrEqualTo(r.timeline().firstStdoutMs());
    }

    @Test
    void run_oldOnlyServerIgnoringUnknownRequests_initializeAfterTheShortSilenceStillStartsIt() throws Exception {
        ServerResult r = only(StartupProbe.builder().build().run(List.of(script("old-silent", oldStdio(true)))));

        assertThat(r.outcome()).as(r.reason() + " " + r.stderrTail()).isEqualTo(Outcome.OK);
        assertThat(r.protocolVersion()).isEqualTo("2025-11-25");
        assertThat(r.stderrTail()).containsSubsequence("got server/discover", "got initialize");
    }

    @Test
    void run_initializeFirstOrder_oldServerNeverSeesServerDiscover() throws Exception {
        ServerResult r = only(StartupProbe.builder().handshake(HandshakeOrder.INITIALIZE_FIRST).build()
                .run(List.of(script("old", oldStdio(false)))));

        assertThat(r.outcome()).isEqualTo(Outcome.OK);
        assertThat(r.stderrTail()).doesNotContain("got server/discover").startsWith("got initialize");
    }

    @Test
    void run_serverSpeakingNeither_protocolErrorNamingBothRevisions() throws Exception {
        ServerConfig neither = script("neither", String.join("\n",
                "import json, sys",
                "for line in sys.stdin:",
                "    req = json.loads(line)",
                "    if 'id' not in req: continue",
                "    print(json.dumps({'jsonrpc': '2.0', 'id': req['id'], 'error': {'code': -32603, 'message': 'broken'}}),"
                        + " flush=True)"));

        ServerResult r = only(StartupProbe.builder().build().run(List.of(neither)));

        assertThat(r.outcome()).isEqualTo(Outcome.PROTOCOL_ERROR);
        assertThat(r.reason()).startsWith("the server answered neither server/discover (-32603 broken) nor initialize");
    }

    // --- Streamable HTTP: a 400 to the modern request means "old server" ---

    /** A stdlib HTTP server on loopback; prints its port. {@code modern}: 2026-07-28 only, else the old session flow. */
    private static String httpServer(boolean modern) {
        return String.join("\n",
                "import json, sys",
                "from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer",
                "MODERN = " + (modern ? "True" : "False"),
                "class H(BaseHTTPRequestHandler):",
                "    def log_message(self, *a): pass",
                "    def reply(self, status, obj=None, headers=()):",
                "        body = b'' if obj is None else json.dumps(obj).encode()",
                "        self.send_response(status)",
                "        for k, v in headers: self.send_header(k, v)",
                "        if obj is not None: self.send_header('Content-Type', 'application/json')",
                "        self.send_header('Content-Length', str(len(body)))",
                "        self.end_headers(); self.wfile.write(body)",
                "    def do_DELETE(self): self.reply(200)",
                "    def do_POST(self):",
                "        req = json.loads(self.rfile.read(int(self.headers['Content-Length'])))",
                "        sys.stderr.write('got ' + req.get('method', '?') + '\\n'); sys.stderr.flush()",
                "        m = req.get('method')",
                "        if 'id' not in req: return self.reply(202)",
                "        if MODERN:",
                "            if m == 'server/discover': res = {'supportedVersions': ['2026-07-28'], 'capabilities': {}}",
                "            elif m == 'tools/list': res = {'tools': [{'name': 'x'}]}",
                "            else: return self.reply(200, {'jsonrpc': '2.0', 'id': req['id'],",
                "                    'error': {'code': -32022, 'message': 'only 2026-07-28'}})",
                "            return self.reply(200, {'jsonrpc': '2.0', 'id': req['id'], 'result': res})",
                "        if m == 'initialize':",
                "            return self.reply(200, {'jsonrpc': '2.0', 'id': req['id'], 'result': {'protocolVersion':",
                "                req['params']['protocolVersion'], 'capabilities': {}, 'serverInfo': {'name': 'o', 'version': '1'}}},",
                "                [('Mcp-Session-Id', 's-1')])",
                "        if self.headers.get('Mcp-Session-Id') != 's-1':",
                "            return self.reply(400, {'jsonrpc': '2.0', 'id': None, 'error': {'code': -32000,",
                "                'message': 'Bad Request: No valid session ID provided'}})",
                "        return self.reply(200, {'jsonrpc': '2.0', 'id': req['id'], 'result': {'tools': [{'name': 'y'}, {'name': 'z'}]}})",
                "s = ThreadingHTTPServer(('127.0.0.1', 0), H)",
                "print(s.server_address[1], flush=True)",
                "s.serve_forever()");
    }

    private ServerResult probeHttp(boolean modern) throws Exception {
        Path py = dir.resolve((modern ? "modern" : "old") + "_http.py");
        Files.writeString(py, httpServer(modern) + "\n");
        Process server = new ProcessBuilder("python3", py.toString(), marker).redirectError(ProcessBuilder.Redirect.DISCARD)
                .start();
        try {
            BufferedReader out = new BufferedReader(new InputStreamReader(server.getInputStream(), StandardCharsets.UTF_8));
            int port = Integer.parseInt(out.readLine().trim());
            ServerConfig http = ServerConfig.http(modern ? "modern-http" : "old-http",
                    URI.create("http://127.0.0.1:" + port + "/mcp"), Map.of());
            return only(StartupProbe.builder().timeout(Duration.ofSeconds(30)).build().run(List.of(http)));
        } finally {
            server.destroyForcibly();
            server.waitFor(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void run_modernOnlyServerOverHttp_answersServerDiscover() throws Exception {
        ServerResult r = probeHttp(true);

        assertThat(r.outcome()).as(r.reason()).isEqualTo(Outcome.OK);
        assertThat(r.protocolVersion()).isEqualTo("2026-07-28");
        assertThat(r.tools()).isEqualTo(1);
    }

    @Test
    void run_oldOnlyServerOverHttpAnswering400_fallsBackToAnInitializeSession() throws Exception {
        ServerResult r = probeHttp(false);

        assertThat(r.outcome()).as(r.reason()).isEqualTo(Outcome.OK);
        assertThat(r.protocolVersion()).isEqualTo("2025-11-25");
        assertThat(r.tools()).isEqualTo(2);
        assertThat(ProbeProcesses.livingWith(marker)).isEmpty();
    }
}
