package dev.kiln.core.store;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.core.ResponseInputStream;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.core.exception.SdkServiceException;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3Configuration;
import software.amazon.awssdk.services.s3.model.CompletedPart;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;

/**
 * The few S3 requests Kiln makes, each through {@link Retry}: get a small document, put one only if absent
 * ({@code If-None-Match: *}), put a file (multipart above a threshold, never visible before it completes), open an
 * object, delete one. The SDK is set up for S3-compatible stores: path-style, a custom endpoint, checksums only when
 * the operation requires them (Kiln checks its own SHA-256), its own retries off (Kiln's are bounded and say so).
 *
 * <p>Concurrency: thread-safe (the SDK client is).
 */
final class Bucket implements AutoCloseable {
    private final StoreConfig config;
    private final S3Client s3;
    private final Retry retry;
    private final long multipartThreshold;
    private final int partSize;

    Bucket(StoreConfig config, Credentials.Found credentials, Retry retry, Duration timeout, long multipartThreshold,
            int partSize) {
        this.config = config;
        this.retry = retry;
        this.multipartThreshold = multipartThreshold;
        this.partSize = partSize;
        var b = S3Client.builder()
                .httpClientBuilder(UrlConnectionHttpClient.builder().connectionTimeout(timeout).socketTimeout(timeout))
                .region(Region.of(config.region()))
                .credentialsProvider(credentials.provider())
                .serviceConfiguration(S3Configuration.builder().pathStyleAccessEnabled(true).build())
                .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
                .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED)
                .overrideConfiguration(o -> o.retryStrategy(AwsRetryStrategy.doNotRetry()));
        config.endpoint().ifPresent(b::endpointOverride);
        this.s3 = b.build();
    }

    String where() {
        return config.where();
    }

    /** The bytes of a small object, or empty when there is none. */
    Optional<byte[]> get(String path) {
        String key = config.objectKey(path);
        return retry.run(where(), "GET " + key, () -> {
            try {
                return Optional.of(s3.getObjectAsBytes(r -> r.bucket(config.bucket()).key(key)).asByteArray());
            } catch (NoSuchKeyException e) {
                return Optional.empty();
            } catch (SdkServiceException e) {
                if (e.statusCode() == 404 && !isNoSuchBucket(e)) {
                    return Optional.empty();
                }
                throw e;
            }
        });
    }

    private static boolean isNoSuchBucket(SdkServiceException e) {
        return e instanceof software.amazon.awssdk.services.s3.model.NoSuchBucketException
                || String.valueOf(e.getMessage()).contains("NoSuchBucket");
    }

    /** Writes {@code bytes} at {@code path} unless something is there already; whether this call wrote it. */
    boolean putIfAbsent(String path, byte[] bytes) {
        String key = config.objectKey(path);
        return retry.run(where(), "PUT " + key, () -> {
            try {
                s3.putObject(r -> r.bucket(config.bucket()).key(key).ifNoneMatch("*").contentType("application/json"),
                        RequestBody.fromBytes(bytes));
                return true;
            } catch (SdkServiceException e) {
                if (e.statusCode() == 412 || e.statusCode() == 409) {
                    return false; // the key exists: the first complete writer won
                }
                throw e;
            }
        });
    }

    /**
     * Uploads {@code file} to {@code path}. Above the multipart threshold in parts: until the upload is completed the
     * object does not exist for any reader, and a failed upload is aborted. Callers name objects by their content's
     * SHA-256, so two writers of one path write the same bytes.
     */
    void putFile(String path, Path file, long size) {
        String key = config.objectKey(path);
        if (size < multipartThreshold) {
            retry.run(where(), "PUT " + key, () -> s3.putObject(r -> r.bucket(config.bucket()).key(key)
                    .contentType("application/octet-stream"), RequestBody.fromFile(file)));
            return;
        }
        String upload = retry.run(where(), "start multipart upload of " + key, () -> s3.createMultipartUpload(r -> r
                .bucket(config.bucket()).key(key).contentType("application/octet-stream")).uploadId());
        boolean completed = false;
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            List<CompletedPart> parts = new ArrayList<>();
            ByteBuffer buf = ByteBuffer.allocate(partSize);
            for (int n = 1; (long) (n - 1) * partSize < size; n++) {
                buf.clear();
                long at = (long) (n - 1) * partSize;
                while (buf.hasRemaining() && ch.read(buf, at + buf.position()) > 0) {
                    // fill the part
                }
                buf.flip();
                byte[] part = new byte[buf.remaining()];
                buf.get(part);
                int number = n;
                String etag = retry.run(where(), "PUT part " + n + " of " + key, () -> s3.uploadPart(r -> r
                        .bucket(config.bucket()).key(key).uploadId(upload).partNumber(number), RequestBody.fromBytes(part)).eTag());
                parts.add(CompletedPart.builder().partNumber(n).eTag(etag).build());
            }
            retry.run(where(), "complete multipart upload of " + key, () -> s3.completeMultipartUpload(r -> r
                    .bucket(config.bucket()).key(key).uploadId(upload).multipartUpload(m -> m.parts(parts))));
            completed = true;
        } catch (IOException e) {
            throw new StoreException("cannot read " + file + " to upload it: " + e.getMessage(), e);
        } finally {
            if (!completed) {
                try {
                    s3.abortMultipartUpload(r -> r.bucket(config.bucket()).key(key).uploadId(upload));
                } catch (RuntimeException ignored) {
                    // an upload never completed is invisible anyway; the store's lifecycle rules reap it
                }
            }
        }
    }

    /** Opens {@code path} for one read; the caller closes it. Empty when there is none. */
    ResponseInputStream<GetObjectResponse> open(String path) {
        String key = config.objectKey(path);
        return s3.getObject(r -> r.bucket(config.bucket()).key(key));
    }

    /** Runs one read of {@code path}, retried as a whole when the store or the network fails. */
    <T> T read(String path, ReadOp<T> op) {
        String key = config.objectKey(path);
        return retry.run(where(), "GET " + key, () -> {
            try (InputStream in = open(path)) {
                return op.read(in);
            }
        });
    }

    interface ReadOp<T> {
        T read(InputStream in) throws IOException;
    }

    void delete(String path) {
        String key = config.objectKey(path);
        try {
            s3.deleteObject(r -> r.bucket(config.bucket()).key(key));
        } catch (RuntimeException ignored) {
            // best-effort: an orphaned object no manifest names is never taken
        }
    }

    /** Creates the bucket (tests and first-time setup); fine when it exists. */
    void createBucket() {
        retry.run(where(), "create bucket " + config.bucket(), () -> {
            try {
                s3.createBucket(r -> r.bucket(config.bucket()));
            } catch (SdkServiceException e) {
                if (e.statusCode() != 409) {
                    throw e;
                }
            }
            return Boolean.TRUE;
        });
    }

    /** The client itself, for tests that must leave the store in states Kiln never leaves it in. */
    S3Client s3() {
        return s3;
    }

    @Override
    public void close() {
        s3.close();
    }
}
