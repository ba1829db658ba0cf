package dev.kiln.core.serve.client;

import java.net.Socket;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.cert.CertificateEncodingException;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.util.HexFormat;
import java.util.Locale;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509ExtendedTrustManager;

/**
 * A client's TLS trust in exactly one certificate: the daemon's leaf certificate whose SHA-256 fingerprint the
 * operator pinned (from what {@code kiln serve} printed at start). Self-signed certificates work, and safely: any
 * other certificate is refused, whoever signed it.
 *
 * <p>Why an {@link X509ExtendedTrustManager}: the JDK wraps a plain {@code X509TrustManager} and then checks the
 * host name against the certificate as well; the pin already names the one certificate, and a daemon reached as
 * {@code 127.0.0.1} with a certificate for its host name must still work.
 *
 * <p>Concurrency: immutable; the trust manager records nothing.
 */
public final class PinnedTls {
    private PinnedTls() {
    }

    /** A TLS context that trusts exactly the certificate with SHA-256 {@code pin} (any of {@link #normalize}'s forms). */
    /**
     * The context of a client that only ever speaks plain HTTP (a local daemon without TLS, an {@code http://} URL):
     * it trusts no certificate. An {@code HttpClient} built without one takes the JDK's default context, which reads
     * and parses the whole cacerts store for a TLS that is never used: ≈ 0.1–0.2 s of CPU of every {@code kiln status}.
     */
    static SSLContext plainHttpOnly() {
        try {
            SSLContext ctx = SSLContext.getInstance("TLS");
            ctx.init(null, new TrustManager[0], null); // no trust manager: every certificate is refused
            return ctx;
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("the JDK has no TLS", e);
        }
    }

    static SSLContext context(String pin) {
        String want = normalize(pin);
        try {
            SSLContext ctx = SSLContext.getInstance("TLS");
            ctx.init(null, new TrustManager[] {new Pinned(want)}, null);
            return ctx;
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("the JDK has no TLS", e);
        }
    }

    /**
     * A pin in the canonical form {@code AB:CD:…} (32 bytes), from that form, lower case, or bare hex, with or
     * without a {@code SHA256:} prefix.
     *
     * @throws IllegalArgumentException when it is not 32 bytes of hex
     */
    static String normalize(String pin) {
        String hex = pin.trim();
        if (hex.regionMatches(true, 0, "SHA256:", 0, 7) || hex.regionMatches(true, 0, "SHA-256:", 0, 8)) {
            hex = hex.substring(hex.indexOf(':') + 1).trim();
        }
        hex = hex.replace(":", "").replace(" ", "").toUpperCase(Locale.ROOT);
        if (hex.length() != 64 || !hex.chars().allMatch(c -> Character.digit(c, 16) >= 0)) {
            throw new IllegalArgumentException("a certificate pin is the SHA-256 fingerprint of the daemon's certificate"
                    + " (64 hex digits, e.g. AB:CD:…, as kiln serve prints it at start), not \"" + pin + "\"");
        }
        return colons(HexFormat.of().withUpperCase().parseHex(hex));
    }

    /** The certificate's SHA-256, {@code AB:CD:…}. */
    public static String fingerprint(X509Certificate cert) {
        try {
            return colons(MessageDigest.getInstance("SHA-256").digest(cert.getEncoded()));
        } catch (NoSuchAlgorithmException | CertificateEncodingException e) {
            throw new IllegalStateException("cannot fingerprint a certificate: " + e.getMessage(), e);
        }
    }

    private static String colons(byte[] digest) {
        return HexFormat.ofDelimiter(":").withUpperCase().formatHex(digest);
    }

    /**
     * The fingerprint of the certificate a TLS server at {@code host:port} presents, without trusting it (the
     * handshake is abandoned once it is seen), or null when none could be read. Only for a message: the operator
     * compares it with what {@code kiln serve} printed before pinning it.
     */
    static @org.jspecify.annotations.Nullable String presented(String host, int port) {
        String[] seen = new String[1];
        X509ExtendedTrustManager recorder = new Pinned("") {
            @Override
            void check(X509Certificate[] chain) throws CertificateException {
                if (chain != null && chain.length > 0) {
                    seen[0] = fingerprint(chain[0]);
                }
                throw new CertificateException("only looking");
            }
        };
        try {
            SSLContext ctx = SSLContext.getInstance("TLS");
            ctx.init(null, new TrustManager[] {recorder}, null);
            try (Socket raw = new Socket()) {
                raw.connect(new java.net.InetSocketAddress(host, port), 5_000);
                raw.setSoTimeout(5_000);
                try (javax.net.ssl.SSLSocket tls = (javax.net.ssl.SSLSocket) ctx.getSocketFactory()
                        .createSocket(raw, host, port, false)) {
                    tls.startHandshake();
                }
            }
        } catch (java.io.IOException | GeneralSecurityException e) {
            // expected: the recorder refuses every certificate
        }
        return seen[0];
    }

    /** The message of a refused certificate; the client shows it as it is. */
    static final String MISMATCH = "certificate fingerprint mismatch";

    private static class Pinned extends X509ExtendedTrustManager {
        private final String want;

        Pinned(String want) {
            this.want = want;
        }

        void check(X509Certificate[] chain) throws CertificateException {
            if (chain == null || chain.length == 0) {
                throw new CertificateException("the daemon presented no certificate");
            }
            String got = fingerprint(chain[0]);
            // the fingerprint is public: comparing it in constant time is not needed, and it keeps the message exact
            if (!got.equals(want)) {
                throw new CertificateException(MISMATCH + ": the daemon presented SHA256 " + got + " but the pin is SHA256 "
                        + want + ". If its certificate was replaced on purpose, pin the new fingerprint (kiln serve"
                        + " prints it at start); otherwise something else answers at that address");
            }
            chain[0].checkValidity();
        }

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType) throws CertificateException {
            check(chain);
        }

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket) throws CertificateException {
            check(chain);
        }

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine) throws CertificateException {
            check(chain);
        }

        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType) throws CertificateException {
            throw new CertificateException("a pinned client trusts servers only");
        }

        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket) throws CertificateException {
            throw new CertificateException("a pinned client trusts servers only");
        }

        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine) throws CertificateException {
            throw new CertificateException("a pinned client trusts servers only");
        }

        @Override
        public X509Certificate[] getAcceptedIssuers() {
            return new X509Certificate[0];
        }
    }
}
