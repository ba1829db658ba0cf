package dev.kiln.core.serve;

import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** Plain {@link HttpURLConnection} calls (java.base only, so tests need no extra module). */
final class Http {
    record Response(int statusCode, Map<String, List<String>> headerMap, String body) {
        Optional<String> header(String name) {
            return headerMap.entrySet().stream().filter(e -> e.getKey() != null && e.getKey().equalsIgnoreCase(name))
                    .map(e -> e.getValue().get(0)).findFirst();
        }
    }

    private Http() {
    }

    static Response call(String method, URI uri, String... headers) throws IOException {
        HttpURLConnection c = (HttpURLConnection) uri.toURL().openConnection();
        c.setRequestMethod(method);
        c.setConnectTimeout(10_000);
        c.setReadTimeout(60_000);
        for (int i = 0; i + 1 < headers.length; i += 2) {
            c.setRequestProperty(headers[i], headers[i + 1]);
        }
        if (method.equals("POST")) {
            c.setDoOutput(true);
            c.getOutputStream().close();
        }
        int status = c.getResponseCode();
        InputStream in = status >= 400 ? c.getErrorStream() : c.getInputStream();
        String body = in == null ? "" : new String(in.readAllBytes(), StandardCharsets.UTF_8);
        Response r = new Response(status, c.getHeaderFields(), body);
        c.disconnect();
        return r;
    }
}
