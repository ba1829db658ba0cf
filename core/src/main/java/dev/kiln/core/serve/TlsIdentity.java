package dev.kiln.core.serve;

import dev.kiln.core.serve.client.PinnedTls;
import dev.kiln.core.serve.wire.SecretFile;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.util.Arrays;
import java.util.Collections;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;

/**
 * The daemon's TLS identity: a PKCS12 keystore (one private key with its certificate chain) and the password read
 * from a file (never from the command line, where {@code ps} shows it). Its leaf certificate's SHA-256 fingerprint
 * is what a client pins ({@link PinnedTls}).
 *
 * <p>Concurrency: immutable once loaded; the {@link SSLContext} is thread-safe.
 */
final class TlsIdentity {
    /** A PKCS12 keystore of one key and its chain is a few KiB. */
    static final long MAX_KEYSTORE_BYTES = 1 << 20;

    private final SSLContext context;
    private final X509Certificate leaf;

    private TlsIdentity(SSLContext context, X509Certificate leaf) {
        this.context = context;
        this.leaf = leaf;
    }

    /**
     * Loads {@code keystore} (PKCS12) with the password in {@code passwordFile}: its one line, read by {@link SecretFile}
     * (a regular file only, bounded; one other users can read is used with a warning).
     *
     * @throws IllegalArgumentException naming the file and what to do, when either cannot be used
     */
    static TlsIdentity load(Path keystore, Path passwordFile) {
        char[] password;
        try {
            password = SecretFile.read(passwordFile, SecretFile.Kind.TLS_PASSWORD).toCharArray();
        } catch (IOException e) {
            throw new IllegalArgumentException(e.getMessage());
        }
        try {
            KeyStore ks = KeyStore.getInstance("PKCS12");
            // like the password file: a FIFO or device is refused on its stat, never opened, and the size is bounded
            java.nio.file.attribute.BasicFileAttributes file = Files.readAttributes(keystore,
                    java.nio.file.attribute.BasicFileAttributes.class);
            if (!file.isRegularFile() || file.size() > MAX_KEYSTORE_BYTES) {
                throw new IllegalArgumentException("the TLS keystore " + keystore + (file.isRegularFile() ? " is " + file.size()
                        + " bytes, more than a keystore of one key needs (at most " + MAX_KEYSTORE_BYTES + ")"
                        : " is not a regular file (a FIFO, device or directory)") + "; --tls-keystore names a PKCS12 file");
            }
            try (InputStream in = Files.newInputStream(keystore)) {
                ks.load(in, password);
            }
            String alias = null;
            for (String a : Collections.list(ks.aliases())) {
                if (ks.isKeyEntry(a)) {
                    if (alias != null) {
                        throw new IllegalArgumentException("the TLS keystore " + keystore + " holds more than one key ("
                                + alias + ", " + a + "); give the daemon a keystore with exactly one");
                    }
                    alias = a;
                }
            }
            if (alias == null) {
                throw new IllegalArgumentException("the TLS keystore " + keystore + " holds no private key; make one with"
                        + " keytool -genkeypair -storetype PKCS12 -keystore " + keystore + " …");
            }
            Certificate cert = ks.getCertificate(alias);
            if (!(cert instanceof X509Certificate x509)) {
                throw new IllegalArgumentException("the key " + alias + " in " + keystore + " has no X.509 certificate");
            }
            KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            kmf.init(ks, password);
            SSLContext ctx = SSLContext.getInstance("TLS");
            ctx.init(kmf.getKeyManagers(), null, null);
            return new TlsIdentity(ctx, x509);
        } catch (NoSuchFileException e) {
            throw new IllegalArgumentException("the TLS keystore " + keystore + " does not exist");
        } catch (IOException e) {
            // a wrong password shows up as an IOException whose cause is UnrecoverableKeyException
            throw new IllegalArgumentException("cannot open the TLS keystore " + keystore + " (" + e.getMessage()
                    + "); is it PKCS12, and is the password in the password file its password?");
        } catch (GeneralSecurityException e) {
            throw new IllegalArgumentException("cannot use the TLS keystore " + keystore + ": " + e.getMessage());
        } finally {
            Arrays.fill(password, '\0');
        }
    }

    SSLContext context() {
        return context;
    }

    /** The leaf certificate's SHA-256, {@code AB:CD:…} (as {@code keytool -list} prints it). */
    String fingerprint() {
        return PinnedTls.fingerprint(leaf);
    }
}
