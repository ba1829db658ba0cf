package dev.kiln.core.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kiln.core.workspace.WorkspaceException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class StoreConfigTest {
    @TempDir
    Path ws;

    @Test
    void read_storeObject_givesBucketPrefixEndpointRegion() throws Exception {
        Files.writeString(ws.resolve("kiln.json"), "{\"store\": {\"url\": \"s3://fleet-seeds/kiln/ci/\", \"endpoint\":"
                + " \"http://127.0.0.1:8333\", \"region\": \"eu-west-1\"}}");
        StoreConfig c = StoreConfig.read(ws).orElseThrow();
        assertThat(c.bucket()).isEqualTo("fleet-seeds");
        assertThat(c.prefix()).isEqualTo("kiln/ci");
        assertThat(c.endpoint()).hasValueSatisfying(e -> assertThat(e.getPort()).isEqualTo(8333));
        assertThat(c.region()).isEqualTo("eu-west-1");
        assertThat(c.objectKey("seeds/a/b")).isEqualTo("kiln/ci/seeds/a/b");
        assertThat(c.url()).isEqualTo("s3://fleet-seeds/kiln/ci");
    }

    @Test
    void read_noStore_isEmpty_andDefaultsRegion() throws Exception {
        Files.writeString(ws.resolve("kiln.json"), "{}");
        assertThat(StoreConfig.read(ws)).isEmpty();
        assertThat(StoreConfig.of("s3://b-1", null, null).region()).isEqualTo("us-east-1");
        assertThat(StoreConfig.of("s3://b-1", null, null).prefix()).isEmpty();
    }

    @Test
    void read_credentialInWorkspaceFile_refusedWithTheChain() throws Exception {
        Files.writeString(ws.resolve("kiln.json"), "{\"store\": {\"url\": \"s3://b-1/p\", \"secret_access_key\": \"x\"}}");
        assertThatThrownBy(() -> StoreConfig.read(ws)).isInstanceOf(WorkspaceException.class)
                .hasMessageContaining("store.secret_access_key").hasMessageContaining("never holds credentials")
                .hasMessageContaining("AWS_PROFILE");
    }

    @Test
    void read_badValues_nameTheFieldAndTheFile() throws Exception {
        for (String bad : new String[] {"{\"store\": {\"url\": \"http://b/p\"}}", "{\"store\": {\"url\": \"s3://B_ad\"}}",
                "{\"store\": {\"url\": \"s3://good/../x\"}}", "{\"store\": {\"url\": \"s3://good\", \"endpoint\": \"ftp://h\"}}",
                "{\"store\": {\"url\": \"s3://good\", \"endpoint\": \"http://user:pw@h:1\"}}", "{\"store\": \"s3://x\"}",
                "{\"store\": {}}"}) {
            Files.writeString(ws.resolve("kiln.json"), bad);
            assertThatThrownBy(() -> StoreConfig.read(ws)).as(bad).isInstanceOf(WorkspaceException.class)
                    .hasMessageContaining(ws.resolve("kiln.json").toString()).hasMessageContaining("store");
        }
    }

    @Test
    void keys_haveTheDocumentedShapes_andRefuseTraversal() {
        String h = "ab".repeat(32);
        assertThat(StoreKey.seed("demo", h).path()).isEqualTo("seeds/demo/" + h);
        assertThat(StoreKey.server("@modelcontextprotocol/server-memory", "2026.8.31", "node24", h).path())
                .isEqualTo("servers/modelcontextprotocol+server-memory@2026.8.31/node24/" + h);
        assertThat(StoreKey.archive(h).path()).isEqualTo("archives/" + h);
        assertThat(StoreKey.seed("demo", h).objectPath(h)).isEqualTo("seeds/demo/" + h + "/" + h + ".tar.gz");
        assertThatThrownBy(() -> StoreKey.seed("..", h)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> StoreKey.seed("a/../b", h)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> StoreKey.archive("abc")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void credentials_chainOrder_envThenProfile_noneSaysHow() throws Exception {
        assertThat(Credentials.chain(Map.of("AWS_ACCESS_KEY_ID", "id", "AWS_SECRET_ACCESS_KEY", "s")).source())
                .startsWith("environment");
        Path file = ws.resolve("credentials");
        Files.writeString(file, "[ci]\naws_access_key_id = id2\naws_secret_access_key = s2\n");
        Credentials.Found f = Credentials.chain(Map.of("AWS_SHARED_CREDENTIALS_FILE", file.toString(), "AWS_PROFILE", "ci"));
        assertThat(f.source()).contains("profile \"ci\"");
        assertThat(f.provider().resolveCredentials().accessKeyId()).isEqualTo("id2");
        assertThatThrownBy(() -> Credentials.chain(Map.of("AWS_SHARED_CREDENTIALS_FILE", file.toString(), "AWS_PROFILE", "x")))
                .isInstanceOf(StoreException.class).hasMessageContaining("no profile \"x\"").hasMessageNotContaining("s2");
        assertThatThrownBy(() -> Credentials.chain(Map.of("HOME", ws.resolve("nohome").toString())))
                .isInstanceOf(StoreException.class).hasMessageContaining("no AWS credentials found")
                .hasMessageContaining("AWS_WEB_IDENTITY_TOKEN_FILE");
    }
}
