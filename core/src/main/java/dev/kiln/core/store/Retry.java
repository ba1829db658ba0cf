package dev.kiln.core.store;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.exception.SdkServiceException;

/**
 * Bounded retries with exponential backoff for one store request: the store down (connection refused), slow (a
 * timeout) or failing (5xx, 429) is tried again up to {@code attempts} times, then reported with what was tried and
 * the last reason. A refusal that retrying cannot fix (403, 404, a corrupted object) is reported at once.
 *
 * <p>Concurrency: immutable; {@link #run} may be called from any thread.
 */
final class Retry {
    /** Sleeps between attempts; injected so tests need not wait. */
    interface Sleeper {
        void sleep(Duration d) throws InterruptedException;
    }

    interface Op<T> {
        T call() throws IOException;
    }

    private final int attempts;
    private final Duration base;
    private final Sleeper sleeper;

    Retry(int attempts, Duration base, Sleeper sleeper) {
        if (attempts < 1) {
            throw new IllegalArgumentException("attempts must be at least 1, got " + attempts);
        }
        this.attempts = attempts;
        this.base = base;
        this.sleeper = sleeper;
    }

    int attempts() {
        return attempts;
    }

    <T> T run(String where, String what, Op<T> op) {
        RuntimeException last = null;
        String reason = "";
        for (int i = 1; i <= attempts; i++) {
            try {
                return op.call();
            } catch (StoreException e) {
                throw e; // Kiln's own verdict (corrupted, refused): retrying gives the same answer
            } catch (SdkServiceException e) {
                int status = e.statusCode();
                if (!(status >= 500 || status == 429 || status == 408)) {
                    throw new StoreException(where + ": " + what + " refused: " + describe(e) + advice(status), e);
                }
                last = e;
                reason = describe(e);
            } catch (SdkClientException e) {
                last = e;
                reason = rootMessage(e);
            } catch (IOException | UncheckedIOException e) {
                last = e instanceof UncheckedIOException u ? u : new UncheckedIOException((IOException) e);
                reason = rootMessage(e);
            }
            if (i < attempts) {
                try {
                    sleeper.sleep(base.multipliedBy(1L << Math.min(i - 1, 10)));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new StoreException(where + ": " + what + " interrupted", e);
                }
            }
        }
        throw new StoreException(where + ": " + what + " failed " + attempts + " times (backing off from "
                + base.toMillis() + " ms); last: " + reason + ". Is the store up and reachable? Check the endpoint and"
                + " run again.", last, true);
    }

    static String describe(SdkServiceException e) {
        String code = e instanceof AwsServiceException a && a.awsErrorDetails() != null
                ? a.awsErrorDetails().errorCode() : null;
        return "HTTP " + e.statusCode() + (code != null ? " " + code : "");
    }

    private static String advice(int status) {
        if (status == 403 || status == 401) {
            return " (the store refused the credentials or their permissions; " + Credentials.HOW + ")";
        }
        if (status == 404) {
            return " (no such bucket? create it first, e.g. aws s3 mb)";
        }
        return "";
    }

    static String rootMessage(Throwable e) {
        Throwable t = e;
        while (t.getCause() != null && t.getCause() != t) {
            t = t.getCause();
        }
        String m = t.getMessage();
        return t.getClass().getSimpleName() + (m != null ? ": " + m : "");
    }
}
