package dev.kiln.core.store;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.AwsSessionCredentials;
import software.amazon.awssdk.auth.credentials.ProfileCredentialsProvider;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.auth.credentials.WebIdentityTokenFileCredentialsProvider;
import software.amazon.awssdk.profiles.ProfileFile;

/**
 * The standard AWS credential chain, read from an injected environment (the caller's, by default this process's), and
 * nothing else: environment keys, then web identity, then a profile of the shared credentials file. Never a workspace
 * file, never system properties, never the instance metadata service (a network call Kiln does not make behind an
 * operator's back). The secrets stay inside the SDK's provider: no message here or elsewhere ever includes them.
 */
final class Credentials {
    static final String HOW = "give them through the standard AWS chain: AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY"
            + " (and AWS_SESSION_TOKEN), AWS_WEB_IDENTITY_TOKEN_FILE with AWS_ROLE_ARN, or a profile (AWS_PROFILE, default"
            + " \"default\") in ~/.aws/credentials (AWS_SHARED_CREDENTIALS_FILE)";

    private Credentials() {
    }

    /** Which source the chain found (for messages: a name, never a value). */
    record Found(AwsCredentialsProvider provider, String source) {
    }

    static Found chain(Map<String, String> env) {
        String id = env.get("AWS_ACCESS_KEY_ID");
        String secret = env.get("AWS_SECRET_ACCESS_KEY");
        if (id != null && !id.isBlank() && secret != null && !secret.isBlank()) {
            String token = env.get("AWS_SESSION_TOKEN");
            return new Found(StaticCredentialsProvider.create(token == null || token.isBlank()
                    ? AwsBasicCredentials.create(id, secret) : AwsSessionCredentials.create(id, secret, token)),
                    "environment (AWS_ACCESS_KEY_ID)");
        }
        String tokenFile = env.get("AWS_WEB_IDENTITY_TOKEN_FILE");
        String role = env.get("AWS_ROLE_ARN");
        if (tokenFile != null && !tokenFile.isBlank() && role != null && !role.isBlank()) {
            return new Found(WebIdentityTokenFileCredentialsProvider.builder().webIdentityTokenFile(Path.of(tokenFile))
                    .roleArn(role).roleSessionName(env.getOrDefault("AWS_ROLE_SESSION_NAME", "kiln")).build(),
                    "web identity (AWS_WEB_IDENTITY_TOKEN_FILE)");
        }
        String file = env.get("AWS_SHARED_CREDENTIALS_FILE");
        Path credentials = file != null && !file.isBlank() ? Path.of(file)
                : env.containsKey("HOME") ? Path.of(env.get("HOME"), ".aws", "credentials") : null;
        if (credentials != null && Files.isRegularFile(credentials)) {
            String profile = env.getOrDefault("AWS_PROFILE", "default");
            ProfileFile pf = ProfileFile.builder().content(credentials).type(ProfileFile.Type.CREDENTIALS).build();
            if (pf.profile(profile).isEmpty()) {
                throw new StoreException("no AWS credentials: " + credentials + " has no profile \"" + profile + "\"; "
                        + HOW);
            }
            return new Found(ProfileCredentialsProvider.builder().profileFile(pf).profileName(profile).build(),
                    "profile \"" + profile + "\" of " + credentials);
        }
        throw new StoreException("no AWS credentials found; " + HOW);
    }
}
