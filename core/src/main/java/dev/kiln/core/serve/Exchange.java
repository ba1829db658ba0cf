package dev.kiln.core.serve;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpExchange;
import dev.kiln.core.serve.wire.Wire;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.zip.Deflater;
import java.util.zip.GZIPOutputStream;
import org.jspecify.annotations.Nullable;

/**
 * One request to the API and its answer, as a route's handler sees it: the request's body, query, id and
 * {@code Idempotency-Key} read within the API's bounds, and the answer written as JSON (gzipped when large and
 * accepted). What a handler cannot take as sent it throws as {@link BadRequest}; {@link ApiServer} answers 400.
 *
 * <p>Concurrency: one per request, used by the request's thread only; the {@link Gzip} cache it writes through is
 * shared and safe for concurrent use.
 */
final class Exchange {
    /** The largest request body read: requests are small JSON objects. */
    private static final int MAX_BODY = 64 * 1024;

    private final HttpExchange raw;
    private final Gzip gzip;
    private @Nullable String id;

    Exchange(HttpExchange raw, Gzip gzip) {
        this.raw = raw;
        this.gzip = gzip;
    }

    /** The JDK's exchange: headers beyond what this class reads, and the raw body of a stream. */
    HttpExchange raw() {
        return raw;
    }

    /** The id a template route ({@code actions/{id}}) matched; set by the route table. */
    String id() {
        return java.util.Objects.requireNonNull(id, "not a template route");
    }

    void id(String matched) {
        this.id = matched;
    }

    /** The request's JSON object body; {@code {}} when empty. */
    JsonNode body() throws IOException, BadRequest {
        byte[] b = raw.getRequestBody().readNBytes(MAX_BODY + 1);
        if (b.length > MAX_BODY) {
            throw new BadRequest("the request body is larger than " + MAX_BODY + " bytes; requests are small JSON objects");
        }
        if (b.length == 0) {
            return Wire.JSON.createObjectNode();
        }
        try {
            JsonNode n = Wire.JSON.readTree(b);
            if (n == null || !n.isObject()) {
                throw new BadRequest("the request body must be a JSON object");
            }
            return n;
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new BadRequest("the request body is not JSON: " + e.getOriginalMessage());
        }
    }

    /** The non-empty string {@code name} of a request body. */
    static String field(JsonNode body, String name) throws BadRequest {
        JsonNode v = body.get(name);
        if (v == null || !v.isTextual() || v.asText().isBlank()) {
            throw new BadRequest("the request body needs \"" + name + "\" (a non-empty string)");
        }
        return v.asText();
    }

    /** The non-empty query parameter {@code name}. */
    String query(String name) throws BadRequest {
        String q = raw.getRequestURI().getRawQuery();
        if (q != null) {
            for (String kv : q.split("&")) {
                String[] p = kv.split("=", 2);
                if (p[0].equals(name) && p.length == 2 && !p[1].isEmpty()) {
                    return URLDecoder.decode(p[1], StandardCharsets.UTF_8);
                }
            }
        }
        throw new BadRequest("the query needs " + name + "=…");
    }

    /** Whether the query asks for a dry run ({@code dry_run}, {@code dry_run=true} or {@code =1}). */
    boolean dryRun() {
        String q = raw.getRequestURI().getRawQuery();
        if (q == null) {
            return false;
        }
        for (String kv : q.split("&")) {
            String[] p = kv.split("=", 2);
            if (p[0].equals(Wire.DRY_RUN)) {
                return p.length == 1 || p[1].equalsIgnoreCase("true") || p[1].equals("1");
            }
        }
        return false;
    }

    /** The request's {@code Idempotency-Key}, empty when it sent none. */
    String key() throws BadRequest {
        String k = raw.getRequestHeaders().getFirst(Wire.IDEMPOTENCY_KEY);
        if (k == null) {
            return "";
        }
        if (k.length() > 200) {
            throw new BadRequest(Wire.IDEMPOTENCY_KEY + " is at most 200 characters");
        }
        return k.trim();
    }

    /** A request header, or null. */
    @Nullable String header(String name) {
        return raw.getRequestHeaders().getFirst(name);
    }

    /** Sets an answer header (before the answer is sent). */
    Exchange answerHeader(String name, String value) {
        raw.getResponseHeaders().set(name, value);
        return this;
    }

    void json(int status, JsonNode body) throws IOException {
        send(status, "application/json", Wire.JSON.writeValueAsBytes(body));
    }

    void error(int status, String code, String message) throws IOException {
        json(status, Wire.error(code, message));
    }

    /** Writes a whole body; gzipped when it is large and the client accepts gzip. */
    void send(int status, String type, byte[] body) throws IOException {
        raw.getResponseHeaders().set("Content-Type", type + "; charset=utf-8");
        if (body.length >= ApiServer.GZIP_MIN_BYTES) {
            raw.getResponseHeaders().set("Vary", "Accept-Encoding");
            if (Wire.acceptsGzip(raw.getRequestHeaders().get("Accept-Encoding"))) {
                body = gzip.of(body);
                raw.getResponseHeaders().set("Content-Encoding", "gzip");
            }
        }
        boolean head = raw.getRequestMethod().equals("HEAD");
        raw.sendResponseHeaders(status, head ? -1 : (body.length == 0 ? -1 : body.length));
        if (!head && body.length > 0) {
            try (OutputStream out = raw.getResponseBody()) {
                out.write(body);
            }
        }
    }

    /** A value a client sent, quoted back only when short: {@code 'abc'}, {@code (none)}. */
    static String shown(@Nullable String value) {
        if (value == null) {
            return "(none)";
        }
        return "'" + (value.length() <= 80 ? value : value.substring(0, 80) + "…") + "'";
    }

    /** A request the API cannot take as sent (its body or query); answered 400 with the message. */
    static final class BadRequest extends Exception {
        private static final long serialVersionUID = 1L;

        BadRequest(String message) {
            super(message);
        }
    }

    /**
     * The last gzipped body, by identity of its bytes: each revision of a large state is compressed once, however
     * many clients ask for it. Concurrency: one volatile pair, replaced whole.
     */
    static final class Gzip {
        /** One body and its gzip. */
        private record Gzipped(byte[] plain, byte[] gzip) {
        }

        private volatile @Nullable Gzipped last;

        /**
         * The gzip of {@code body}; the same array as last time (a state revision asked for again) is not compressed
         * again. Speed over ratio: JSON shrinks about tenfold at level 1 already.
         */
        byte[] of(byte[] body) throws IOException {
            Gzipped l = last;
            if (l != null && l.plain() == body) {
                return l.gzip();
            }
            ByteArrayOutputStream out = new ByteArrayOutputStream(Math.max(64, body.length / 8));
            try (GZIPOutputStream gz = new GZIPOutputStream(out, 64 * 1024) {
                {
                    def.setLevel(Deflater.BEST_SPEED);
                }
            }) {
                gz.write(body);
            }
            byte[] z = out.toByteArray();
            last = new Gzipped(body, z);
            return z;
        }
    }
}
