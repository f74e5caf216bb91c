package dev.idempotency.autoconfigure.actuate;

import java.time.Duration;

import dev.idempotency.autoconfigure.IdempotencyAutoConfiguration;
import dev.idempotency.autoconfigure.store.IdempotencyStoreAutoConfiguration;
import dev.idempotency.core.ClaimResult;
import dev.idempotency.core.IdempotencyKey;
import dev.idempotency.core.KeyRecord;
import dev.idempotency.kafka.autoconfigure.IdempotencyKafkaEndpointAutoConfiguration;
import dev.idempotency.outbox.autoconfigure.IdempotencyOutboxEndpointAutoConfiguration;
import dev.idempotency.redis.stream.autoconfigure.IdempotencyRedisStreamEndpointAutoConfiguration;
import dev.idempotency.store.jdbc.autoconfigure.IdempotencyJdbcStoreAutoConfiguration;
import dev.idempotency.store.redis.RedisIdempotencyStore;
import dev.idempotency.store.redis.autoconfigure.IdempotencyRedisStoreAutoConfiguration;
import dev.idempotency.testsupport.TestRedisConnections;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

import org.springframework.boot.actuate.autoconfigure.endpoint.EndpointAutoConfiguration;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link IdempotencyEndpoint} on the auto-configured Redis store and a real Redis: a completed key is
 * looked up and released, a claim in progress is refused (409) until forced.
 */
class IdempotencyEndpointRedisIntegrationTests {

	private static final String PREFIX = TestRedisConnections
		.uniqueKeyPrefix(IdempotencyEndpointRedisIntegrationTests.class);

	private static final Duration LEASE = Duration.ofMinutes(1);

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(EndpointAutoConfiguration.class, DataRedisAutoConfiguration.class,
				IdempotencyStoreAutoConfiguration.class, IdempotencyJdbcStoreAutoConfiguration.class,
				IdempotencyRedisStoreAutoConfiguration.class, IdempotencyAutoConfiguration.class,
				IdempotencyEndpointAutoConfiguration.class, IdempotencyOutboxEndpointAutoConfiguration.class,
				IdempotencyKafkaEndpointAutoConfiguration.class, IdempotencyRedisStreamEndpointAutoConfiguration.class))
		.withPropertyValues(TestRedisConnections.properties())
		.withPropertyValues("idempotency.store.type=redis", "idempotency.redis.key-prefix=" + PREFIX,
				"management.endpoints.web.exposure.include=idempotency");

	@AfterAll
	static void deleteKeys() {
		LettuceConnectionFactory connectionFactory = TestRedisConnections.connectionFactory();
		try {
			TestRedisConnections.deleteKeys(connectionFactory, PREFIX);
			TestRedisConnections.deleteKeys(connectionFactory, "{" + PREFIX);
		}
		finally {
			connectionFactory.destroy();
		}
	}

	@Test
	void keysAreLookedUpAndReleasedUnlessARunMayStillHoldThem() {
		this.contextRunner.run((context) -> {
			IdempotencyEndpoint endpoint = context.getBean(IdempotencyEndpoint.class);
			RedisIdempotencyStore store = context.getBean(RedisIdempotencyStore.class);
			assertThat(endpoint.overview().stores().get("idempotencyStore"))
				.isEqualTo(new IdempotencyEndpoint.StoreDescriptor("redis", true));
			IdempotencyKey done = new IdempotencyKey("orders", "4711");
			store.complete(done, store.claim(done, LEASE, LEASE), LEASE);
			WebEndpointResponse<Object> found = key(endpoint, "keys", "orders", new String[] { "4711" });
			assertThat(found.getStatus()).isEqualTo(200);
			assertThat(found.getBody()).isInstanceOfSatisfying(IdempotencyEndpoint.KeyLookup.class,
					(lookup) -> assertThat(lookup.stores().get("idempotencyStore").status())
						.isEqualTo(KeyRecord.Status.COMPLETED));
			assertThat(endpoint.release("keys", "orders", new String[] { "4711" }, null, SecurityContext.NONE)
				.getStatus()).isEqualTo(200);
			assertThat(key(endpoint, "keys", "orders", new String[] { "4711" }).getStatus()).isEqualTo(404);

			IdempotencyKey running = new IdempotencyKey("orders", "4712");
			ClaimResult claim = store.claim(running, LEASE, LEASE);
			assertThat(claim.isClaimed()).isTrue();
			assertThat(endpoint.release("keys", "orders", new String[] { "4712" }, null, SecurityContext.NONE)
				.getStatus()).isEqualTo(409);
			assertThat(key(endpoint, "keys", "orders", new String[] { "4712" }).getStatus()).isEqualTo(200);
			assertThat(endpoint.release("keys", "orders", new String[] { "4712" }, true, SecurityContext.NONE)
				.getStatus()).isEqualTo(200);
			assertThat(store.inspect(running)).isNull();
		});
	}

	// The GET operation that also takes the dead letters' parameters, without them.
	private static WebEndpointResponse<Object> key(IdempotencyEndpoint endpoint, String section, String namespace,
			String[] key) {
		return endpoint.lookup(section, namespace, key, null, null, null, null);
	}

}
