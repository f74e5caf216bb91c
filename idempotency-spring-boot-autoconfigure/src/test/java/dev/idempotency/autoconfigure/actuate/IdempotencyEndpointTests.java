package dev.idempotency.autoconfigure.actuate;

import java.time.Duration;
import java.util.List;

import dev.idempotency.autoconfigure.IdempotencyAutoConfiguration;
import dev.idempotency.autoconfigure.store.IdempotencyStoreAutoConfiguration;
import dev.idempotency.core.ClaimResult;
import dev.idempotency.core.IdempotencyKey;
import dev.idempotency.core.IdempotencyReconciler;
import dev.idempotency.core.KeyRecord;
import dev.idempotency.core.KeyRelease;
import dev.idempotency.core.UnfinishedClaim;
import dev.idempotency.kafka.autoconfigure.IdempotencyKafkaEndpointAutoConfiguration;
import dev.idempotency.outbox.Outbox;
import dev.idempotency.outbox.autoconfigure.IdempotencyOutboxAutoConfiguration;
import dev.idempotency.outbox.autoconfigure.IdempotencyOutboxEndpointAutoConfiguration;
import dev.idempotency.redis.stream.autoconfigure.IdempotencyRedisStreamEndpointAutoConfiguration;
import dev.idempotency.store.jdbc.JdbcIdempotencyStore;
import dev.idempotency.store.jdbc.JdbcLeasedIdempotencyStore;
import dev.idempotency.store.jdbc.autoconfigure.IdempotencyJdbcStoreAutoConfiguration;
import dev.idempotency.store.redis.autoconfigure.IdempotencyRedisStoreAutoConfiguration;
import org.junit.jupiter.api.Test;

import org.springframework.boot.actuate.autoconfigure.endpoint.EndpointAutoConfiguration;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceInitializationAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The operations of {@link IdempotencyEndpoint} on the JDBC store and the outbox on H2, called as
 * Actuator calls them: dispatch on the first path segment, status codes (404 for nothing there,
 * 409 for a key whose run may still hold it), and what each operation changes.
 */
class IdempotencyEndpointTests {

	private static final String NAMESPACE = "points-service";

	private static final Duration LEASE = Duration.ofMinutes(1);

	private static final Duration RETENTION = Duration.ofDays(1);

	private static final SecurityContext CALLER = SecurityContext.NONE;

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(EndpointAutoConfiguration.class, DataSourceAutoConfiguration.class,
				DataSourceTransactionManagerAutoConfiguration.class, DataSourceInitializationAutoConfiguration.class,
				IdempotencyStoreAutoConfiguration.class, IdempotencyJdbcStoreAutoConfiguration.class,
				IdempotencyRedisStoreAutoConfiguration.class, IdempotencyAutoConfiguration.class,
				IdempotencyOutboxAutoConfiguration.class, IdempotencyEndpointAutoConfiguration.class,
				IdempotencyOutboxEndpointAutoConfiguration.class, IdempotencyKafkaEndpointAutoConfiguration.class,
				IdempotencyRedisStreamEndpointAutoConfiguration.class))
		.withPropertyValues("spring.datasource.generate-unique-name=true", "idempotency.outbox.enabled=true",
				"idempotency.outbox.purge.interval=1h", "idempotency.outbox.relay.enabled=false",
				"idempotency.jdbc.purge.enabled=false", "management.endpoints.web.exposure.include=idempotency");

	@Test
	void aProcessedKeyIsLookedUpAndReleasedAKeyWithSlashesSpanningSegments() {
		this.contextRunner.run((context) -> {
			IdempotencyEndpoint endpoint = context.getBean(IdempotencyEndpoint.class);
			IdempotencyKey key = new IdempotencyKey(NAMESPACE, "orders/4711");
			transactions(context).executeWithoutResult(
					(status) -> context.getBean(JdbcIdempotencyStore.class).claim(key, LEASE, RETENTION));
			WebEndpointResponse<Object> found = key(endpoint, "keys", NAMESPACE, new String[] { "orders", "4711" });
			assertThat(found.getStatus()).isEqualTo(200);
			assertThat(found.getBody()).isInstanceOfSatisfying(IdempotencyEndpoint.KeyLookup.class, (lookup) -> {
				assertThat(lookup.key()).isEqualTo("orders/4711");
				assertThat(lookup.stores()).containsOnlyKeys("idempotencyStore");
				assertThat(lookup.stores().get("idempotencyStore").status()).isEqualTo(KeyRecord.Status.COMPLETED);
			});
			WebEndpointResponse<Object> released = endpoint.release("keys", NAMESPACE,
					new String[] { "orders", "4711" }, null, CALLER);
			assertThat(released.getStatus()).isEqualTo(200);
			assertThat(released.getBody()).isInstanceOfSatisfying(IdempotencyEndpoint.KeyReleaseOutcome.class,
					(outcome) -> assertThat(outcome.stores()).containsEntry("idempotencyStore", KeyRelease.RELEASED));
			assertThat(key(endpoint, "keys", NAMESPACE, new String[] { "orders", "4711" }).getStatus()).isEqualTo(404);
			assertThat(endpoint.release("keys", NAMESPACE, new String[] { "orders", "4711" }, null, CALLER)
				.getStatus()).isEqualTo(404);
		});
	}

	@Test
	void aKeyWhoseRunMayStillHoldItIsReleasedOnlyWhenForced() {
		this.contextRunner.run((context) -> {
			IdempotencyEndpoint endpoint = context.getBean(IdempotencyEndpoint.class);
			IdempotencyKey key = new IdempotencyKey(NAMESPACE, "payment-1");
			leased(context).claim(key, LEASE, RETENTION);
			String[] segments = { "payment-1" };
			WebEndpointResponse<Object> refused = endpoint.release("keys", NAMESPACE, segments, null, CALLER);
			assertThat(refused.getStatus()).isEqualTo(409);
			assertThat(refused.getBody()).isInstanceOfSatisfying(IdempotencyEndpoint.KeyReleaseOutcome.class,
					(outcome) -> assertThat(outcome.stores()).containsEntry("idempotencyStore",
							KeyRelease.REFUSED_IN_PROGRESS));
			assertThat(key(endpoint, "keys", NAMESPACE, segments).getStatus()).isEqualTo(200);
			assertThat(endpoint.release("keys", NAMESPACE, segments, false, CALLER).getStatus()).isEqualTo(409);
			assertThat(endpoint.release("keys", NAMESPACE, segments, true, CALLER).getStatus()).isEqualTo(200);
			assertThat(key(endpoint, "keys", NAMESPACE, segments).getStatus()).isEqualTo(404);
		});
	}

	@Test
	void parkedKeysAreListedMarkedCompletedAndReleased() throws Exception {
		this.contextRunner.run((context) -> {
			IdempotencyEndpoint endpoint = context.getBean(IdempotencyEndpoint.class);
			park(context, new IdempotencyKey(NAMESPACE, "charged"), new IdempotencyKey(NAMESPACE, "not-charged"));
			WebEndpointResponse<Object> listed = endpoint.list("parked", NAMESPACE, null);
			assertThat(listed.getStatus()).isEqualTo(200);
			assertThat(listed.getBody()).isInstanceOfSatisfying(IdempotencyEndpoint.ParkedList.class,
					(parked) -> assertThat(parked.keys()).extracting(IdempotencyEndpoint.ParkedDescriptor::key)
						.containsExactlyInAnyOrder("charged", "not-charged"));
			assertThat(act(endpoint, "parked", NAMESPACE, new String[] { "charged" }, CALLER).getStatus())
				.isEqualTo(200);
			assertThat(act(endpoint, "parked", NAMESPACE, new String[] { "charged" }, CALLER).getStatus())
				.isEqualTo(404);
			assertThat(context.getBean(JdbcIdempotencyStore.class)
				.inspect(new IdempotencyKey(NAMESPACE, "charged"))).extracting(KeyRecord::status)
				.isEqualTo(KeyRecord.Status.COMPLETED);
			assertThat(endpoint.release("parked", NAMESPACE, new String[] { "not-charged" }, null, CALLER)
				.getStatus()).isEqualTo(200);
			assertThat(endpoint.release("parked", NAMESPACE, new String[] { "not-charged" }, null, CALLER)
				.getStatus()).isEqualTo(404);
			assertThat(endpoint.list("parked", null, null).getBody())
				.isEqualTo(new IdempotencyEndpoint.ParkedList(List.of()));
		});
	}

	@Test
	void deadOutboxMessagesArePagedAndRedriven() {
		this.contextRunner.run((context) -> {
			IdempotencyEndpoint endpoint = context.getBean(IdempotencyEndpoint.class);
			Outbox outbox = context.getBean(Outbox.class);
			List<String> ids = transactions(context).execute((status) -> List.of(
					outbox.publish("kafka:orders", "4711", "{}"), outbox.publish("kafka:orders", "4712", "{}"),
					outbox.publish("kafka:orders", "4713", "{}")));
			new JdbcTemplate(context.getBean(javax.sql.DataSource.class))
				.update("UPDATE idempotency_outbox SET status = 'DEAD', last_error = 'broken'");
			WebEndpointResponse<Object> second = endpoint.page("outbox", "dead", 1, 2);
			assertThat(second.getStatus()).isEqualTo(200);
			assertThat(second.getBody()).isInstanceOfSatisfying(IdempotencyEndpoint.DeadPage.class, (page) -> {
				assertThat(page.totalDead()).isEqualTo(3);
				assertThat(page.messages()).singleElement().satisfies((message) -> {
					assertThat(message.messageId()).isEqualTo(ids.get(2));
					assertThat(message.lastError()).isEqualTo("broken");
				});
			});
			assertThat(act(endpoint, "outbox", "dead", new String[] { ids.get(0) }, CALLER).getStatus())
				.isEqualTo(200);
			assertThat(act(endpoint, "outbox", "dead", new String[] { ids.get(0) }, CALLER).getStatus())
				.isEqualTo(404);
			assertThat(endpoint.redriveAll("outbox", "dead", CALLER).getBody())
				.isEqualTo(new IdempotencyEndpoint.Redriven(2));
			assertThat(endpoint.overview().outbox().dead()).isZero();
			assertThat(endpoint.overview().outbox().pending()).isEqualTo(3);
		});
	}

	@Test
	void unknownSectionsAreNotFound() {
		this.contextRunner.run((context) -> {
			IdempotencyEndpoint endpoint = context.getBean(IdempotencyEndpoint.class);
			assertThat(endpoint.list("nothing", null, null).getStatus()).isEqualTo(404);
			assertThat(endpoint.page("outbox", "alive", null, null).getStatus()).isEqualTo(404);
			assertThat(key(endpoint, "nothing", NAMESPACE, new String[] { "k" }).getStatus()).isEqualTo(404);
			assertThat(act(endpoint, "nothing", NAMESPACE, new String[] { "k" }, CALLER).getStatus()).isEqualTo(404);
			assertThat(endpoint.release("nothing", NAMESPACE, new String[] { "k" }, null, CALLER).getStatus())
				.isEqualTo(404);
			assertThat(endpoint.redriveAll("outbox", "alive", CALLER).getStatus()).isEqualTo(404);
		});
	}

	// The GET and POST operations that also take the dead letters' parameters, without them.
	private static WebEndpointResponse<Object> key(IdempotencyEndpoint endpoint, String section, String namespace,
			String[] key) {
		return endpoint.lookup(section, namespace, key, null, null, null, null);
	}
	private static WebEndpointResponse<Object> act(IdempotencyEndpoint endpoint, String section, String first,
			String[] rest, SecurityContext caller) {
		return endpoint.act(section, first, rest, null, null, null, null, caller);
	}

	private static void park(AssertableApplicationContext context, IdempotencyKey... keys) throws InterruptedException {
		JdbcLeasedIdempotencyStore leased = leased(context);
		for (IdempotencyKey key : keys) {
			ClaimResult claim = leased.claim(key, Duration.ofMillis(1), RETENTION);
			assertThat(claim.isClaimed()).isTrue();
		}
		Thread.sleep(20);
		for (UnfinishedClaim unfinished : leased.takeOver(10, LEASE)) {
			leased.settle(unfinished, IdempotencyReconciler.Verdict.MANUAL, RETENTION);
		}
	}

	private static JdbcLeasedIdempotencyStore leased(AssertableApplicationContext context) {
		JdbcLeasedIdempotencyStore leased = context.getBean(JdbcIdempotencyStore.class).leased();
		assertThat(leased).isNotNull();
		return leased;
	}

	private static TransactionTemplate transactions(AssertableApplicationContext context) {
		return new TransactionTemplate(context.getBean(PlatformTransactionManager.class));
	}

}
