package dev.kiln.core.store;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kiln.core.workspace.WorkspaceException;
import dev.kiln.core.workspace.WorkspaceSettings;
import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * Where a workspace's objects live: the {@code "store"} object of its {@code kiln.json}.
 *
 * <pre>{@code "store": {"url": "s3://bucket/prefix", "endpoint": "http://127.0.0.1:8333", "region": "us-east-1"}}</pre>
 *
 * <p>Never credentials: a workspace is data that may come from anyone, so a key in it is refused with the way to
 * give credentials (the standard AWS chain: environment, {@code ~/.aws/credentials} profile, web identity).
 *
 * @param bucket the bucket
 * @param prefix the key prefix inside it, without leading or trailing {@code /} (may be empty)
 * @param endpoint an S3-compatible endpoint (path-style access); empty means AWS's own for the region
 * @param region the signing region
 */
public record StoreConfig(String bucket, String prefix, Optional<URI> endpoint, String region) {
    private static final Pattern BUCKET = Pattern.compile("[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]");
    private static final Pattern PREFIX = Pattern.compile("[A-Za-z0-9._\\-/]*");
    private static final Set<String> FIELDS = Set.of("url", "endpoint", "region");
    static final String DEFAULT_REGION = "us-east-1";

    public StoreConfig {
        if (!BUCKET.matcher(bucket).matches() || bucket.contains("..")) {
            throw new IllegalArgumentException("bucket \"" + bucket + "\" is not a valid bucket name (3-63 characters:"
                    + " lower-case letters, digits, '.' and '-')");
        }
        String p = prefix.replaceAll("^/+|/+$", "");
        if (!PREFIX.matcher(p).matches() || p.contains("//") || p.contains("..")) {
            throw new IllegalArgumentException("prefix \"" + prefix + "\" may hold only letters, digits, '.', '_', '-'"
                    + " and single '/'");
        }
        prefix = p;
        if (endpoint.isPresent()) {
            URI e = endpoint.get();
            if (e.getScheme() == null || !(e.getScheme().equals("http") || e.getScheme().equals("https"))
                    || e.getHost() == null) {
                throw new IllegalArgumentException("endpoint \"" + e + "\" must be an http:// or https:// URL with a host");
            }
            if (e.getUserInfo() != null) {
                throw new IllegalArgumentException("endpoint must not carry credentials (user:password@); Kiln takes"
                        + " them from the standard AWS chain only");
            }
        }
        if (region.isBlank()) {
            throw new IllegalArgumentException("region must not be empty");
        }
    }

    /**
     * The store named by {@code url} ({@code s3://bucket/prefix}), an optional endpoint and region.
     *
     * @throws IllegalArgumentException saying what is wrong and what is expected
     */
    public static StoreConfig of(String url, @Nullable String endpoint, @Nullable String region) {
        if (!url.startsWith("s3://")) {
            throw new IllegalArgumentException("url \"" + url + "\" must look like s3://bucket/prefix");
        }
        String rest = url.substring("s3://".length());
        int slash = rest.indexOf('/');
        String bucket = slash < 0 ? rest : rest.substring(0, slash);
        String prefix = slash < 0 ? "" : rest.substring(slash + 1);
        Optional<URI> ep = Optional.empty();
        if (endpoint != null && !endpoint.isBlank()) {
            try {
                ep = Optional.of(new URI(endpoint.strip()));
            } catch (URISyntaxException e) {
                throw new IllegalArgumentException("endpoint \"" + endpoint + "\" is not a URL: " + e.getReason());
            }
        }
        return new StoreConfig(bucket, prefix, ep, region == null || region.isBlank() ? DEFAULT_REGION : region.strip());
    }

    /**
     * The store the workspace's {@code kiln.json} names; empty when it names none.
     *
     * @throws WorkspaceException naming the file and the field when the {@code store} object is malformed
     */
    public static Optional<StoreConfig> read(Path workspace) {
        Path file = workspace.resolve(WorkspaceSettings.FILE_NAME);
        JsonNode json;
        try {
            json = new ObjectMapper().readTree(Files.readString(file));
        } catch (NoSuchFileException e) {
            return Optional.empty();
        } catch (IOException e) {
            throw new WorkspaceException(file + ": cannot read settings: " + e.getMessage(), e);
        }
        JsonNode s = json == null ? null : json.get("store");
        if (s == null || s.isNull()) {
            return Optional.empty();
        }
        if (!s.isObject()) {
            throw new WorkspaceException(file + ": field 'store' must be an object like {\"url\": \"s3://bucket/prefix\","
                    + " \"endpoint\": …, \"region\": …}");
        }
        for (Iterator<String> it = s.fieldNames(); it.hasNext(); ) {
            String f = it.next();
            if (!FIELDS.contains(f)) {
                String why = f.toLowerCase(java.util.Locale.ROOT).matches(".*(key|secret|token|password|credential).*")
                        ? ": a workspace file never holds credentials; give them through the standard AWS chain"
                        + " (AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, AWS_PROFILE in ~/.aws/credentials, or"
                        + " AWS_WEB_IDENTITY_TOKEN_FILE with AWS_ROLE_ARN) and remove the field"
                        : ": the store takes only url, endpoint and region";
                throw new WorkspaceException(file + ": field 'store." + f + "' is not allowed" + why);
            }
        }
        if (!s.hasNonNull("url")) {
            throw new WorkspaceException(file + ": field 'store.url' is missing (e.g. \"s3://bucket/prefix\")");
        }
        try {
            return Optional.of(of(s.get("url").asText(), s.path("endpoint").isNull() ? null : s.path("endpoint").asText(null),
                    s.path("region").isNull() ? null : s.path("region").asText(null)));
        } catch (IllegalArgumentException e) {
            throw new WorkspaceException(file + ": field 'store': " + e.getMessage(), e);
        }
    }

    /** {@code s3://bucket/prefix}, as the file says it. */
    public String url() {
        return "s3://" + bucket + (prefix.isEmpty() ? "" : "/" + prefix);
    }

    /** The full object key of {@code path} under the prefix. */
    String objectKey(String path) {
        return prefix.isEmpty() ? path : prefix + "/" + path;
    }

    /** Where, for messages: the URL and the endpoint (neither ever carries a secret). */
    String where() {
        return url() + endpoint.map(e -> " at " + e).orElse("");
    }
}
