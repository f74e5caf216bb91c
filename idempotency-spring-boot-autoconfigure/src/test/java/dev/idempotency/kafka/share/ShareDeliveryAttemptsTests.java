package dev.idempotency.kafka.share;

import java.io.IOException;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.Map;

import org.apache.kafka.clients.admin.AdminClientConfig;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * How {@link ShareDeliveryAttempts} resolves its limit when the broker does not answer.
 */
class ShareDeliveryAttemptsTests {

	@Test
	void unansweringBrokerLeavesTheConfiguredLimitWithinTheBrokerTimeout() throws IOException {
		Map<String, Object> admin = Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:" + closedPort());
		ShareDeliveryAttempts attempts = new ShareDeliveryAttempts(() -> admin, 3, Duration.ofMillis(300));
		long start = System.nanoTime();
		attempts.resolve();
		// Far below the Admin client's own 60 s default, far above a start-up on a loaded machine.
		assertThat(Duration.ofNanos(System.nanoTime() - start)).as("time to resolve")
			.isLessThan(Duration.ofSeconds(15));
		assertThat(attempts.limit()).isEqualTo(3);
	}

	@Test
	void unansweringBrokerLeavesKafkasDefaultWithoutAConfiguredLimit() throws IOException {
		Map<String, Object> admin = Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:" + closedPort());
		ShareDeliveryAttempts attempts = new ShareDeliveryAttempts(() -> admin, null, Duration.ofMillis(300));
		attempts.resolve();
		assertThat(attempts.limit()).isEqualTo(ShareDeliveryAttempts.KAFKA_DEFAULT);
	}

	private static int closedPort() throws IOException {
		try (ServerSocket socket = new ServerSocket(0)) {
			return socket.getLocalPort();
		}
	}

}
