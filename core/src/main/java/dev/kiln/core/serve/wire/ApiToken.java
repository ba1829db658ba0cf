package dev.kiln.core.serve.wire;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.HexFormat;
import org.jspecify.annotations.Nullable;

/**
 * The bearer token of the mutating API calls: 256 random bits, new for every daemon start, written to
 * {@code observer/api-token} readable by its owner only (mode 600 from the moment the file exists).
 */
public final class ApiToken {
    private static final SecureRandom RANDOM = new SecureRandom();
    private final String value;

    private ApiToken(String value) {
        this.value = value;
    }

    /** A fresh random token (not written anywhere). */
    public static ApiToken generate() {
        byte[] b = new byte[32];
        RANDOM.nextBytes(b);
        return new ApiToken(HexFormat.of().formatHex(b));
    }

    /** Generates a token and writes it to {@code file} with mode 600, replacing the previous daemon's. */
    public static ApiToken writeNew(Path file) throws IOException {
        ApiToken t = generate();
        Path dir = file.toAbsolutePath().getParent();
        Files.createDirectories(dir);
        Path tmp;
        if (FileSystems.getDefault().supportedFileAttributeViews().contains("posix")) {
            tmp = Files.createTempFile(dir, ".api-token", ".tmp", PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        } else {
            tmp = Files.createTempFile(dir, ".api-token", ".tmp");
        }
        try {
            Files.writeString(tmp, t.value + "\n", StandardCharsets.US_ASCII);
            try {
                Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING);
            }
        } finally {
            Files.deleteIfExists(tmp);
        }
        return t;
    }

    /**
     * Reads the token a daemon wrote, or a client's copy of it, through {@link SecretFile}: one line, a regular file,
     * bounded, never quoted in a message.
     *
     * @throws IOException starting "cannot read the API token file", naming it and what is wrong with it
     */
    public static ApiToken read(Path file) throws IOException {
        return new ApiToken(SecretFile.read(file, SecretFile.Kind.API_TOKEN));
    }

    public String value() {
        return value;
    }

    /** Whether an {@code Authorization} header carries this token; compares in constant time. */
    public boolean authorizes(@Nullable String authorizationHeader) {
        String bearer = Wire.bearerToken(authorizationHeader);
        if (bearer == null) {
            return false;
        }
        // digests first: isEqual is constant-time for equal lengths only, and the hash hides the length too
        return MessageDigest.isEqual(sha256(bearer), sha256(value));
    }

    private static byte[] sha256(String s) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8));
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }

    @Override
    public String toString() {
        return "ApiToken[redacted]";
    }
}
