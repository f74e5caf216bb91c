package dev.idempotency.autoconfigure.actuate;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import dev.idempotency.autoconfigure.actuate.IdempotencyEndpointSection.Request;
import dev.idempotency.core.IdempotencyKey;
import dev.idempotency.core.IdempotencyKeyInspector;
import dev.idempotency.core.IdempotencyStore;
import dev.idempotency.core.KeyRecord;
import dev.idempotency.core.KeyRelease;
import dev.idempotency.support.InMemoryIdempotencyStore;
import org.junit.jupiter.api.Test;

import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.BDDMockito.given;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.verify;

/**
 * {@link KeysSection} alone: {@code keys/{namespace}/{key}} looked up and released in every store
 * that inspects keys, the status of each outcome, and the paths it does not answer.
 */
class KeysSectionTests {

	private static final Duration LEASE = Duration.ofMinutes(1);

	private static final Duration RETENTION = Duration.ofDays(1);

	private final InMemoryIdempotencyStore inspectable = new InMemoryIdempotencyStore();

	private final IdempotencyStore opaque = mock(IdempotencyStore.class);

	private final KeysSection section = new KeysSection(stores("idempotencyStore", this.inspectable, "opaque",
			this.opaque));

	@Test
	void describesEveryStoreAndWhetherItInspectsKeys() {
		given(this.opaque.name()).willReturn("custom");
		assertThat(this.section.name()).isEqualTo("keys");
		assertThat(this.section.stores()).containsExactly(
				Map.entry("idempotencyStore", new IdempotencyEndpoint.StoreDescriptor("in_memory", true)),
				Map.entry("opaque", new IdempotencyEndpoint.StoreDescriptor("custom", false)));
	}

	@Test
	void aKeyIsLookedUpByItsNamespaceAndTheRestOfThePath() {
		this.inspectable.claim(new IdempotencyKey("points", "orders/4711"), LEASE, RETENTION);
		WebEndpointResponse<Object> found = this.section.read(get("points", "orders/4711"));
		assertThat(found.getStatus()).isEqualTo(200);
		assertThat(found.getBody()).isInstanceOfSatisfying(IdempotencyEndpoint.KeyLookup.class, (lookup) -> {
			assertThat(lookup.namespace()).isEqualTo("points");
			assertThat(lookup.key()).isEqualTo("orders/4711");
			assertThat(lookup.stores()).containsOnlyKeys("idempotencyStore");
			assertThat(lookup.stores().get("idempotencyStore").status()).isEqualTo(KeyRecord.Status.PROCESSING);
		});
	}

	@Test
	void aKeyNoStoreHoldsIsNotFoundAndABlankKeyIsABadRequest() {
		assertThat(this.section.read(get("points", "4711")).getBody())
			.isEqualTo(new IdempotencyEndpoint.Problem("No store holds key '4711' in namespace 'points'"));
		assertThat(this.section.read(get("points", "")).getStatus()).isEqualTo(400);
		assertThat(this.section.delete(delete(null, "points", " ")).getStatus()).isEqualTo(400);
	}

	@Test
	void pathsOtherThanANamespaceAndAKeyAreNotFound() {
		assertThat(this.section.read(request(List.of())).getStatus()).isEqualTo(404);
		assertThat(this.section.read(request(List.of("points"))).getStatus()).isEqualTo(404);
		assertThat(this.section.write(request(List.of("points", "4711"))).getStatus()).isEqualTo(404);
	}

	@Test
	void aReleaseIsOkWhenAStoreReleasedItConflictWhenOneRefusedAndNotFoundOtherwise() {
		InspectableStore second = mock(InspectableStore.class);
		KeysSection section = new KeysSection(stores("first", this.inspectable, "second", second));
		IdempotencyKey key = new IdempotencyKey("points", "4711");
		given(second.release(key, false)).willReturn(KeyRelease.REFUSED_IN_PROGRESS);
		given(second.release(key, true)).willReturn(KeyRelease.RELEASED);
		this.inspectable.claim(key, LEASE, RETENTION);
		WebEndpointResponse<Object> refused = section.delete(delete(null, "points", "4711"));
		assertThat(refused.getStatus()).isEqualTo(409);
		assertThat(refused.getBody()).isInstanceOfSatisfying(IdempotencyEndpoint.KeyReleaseOutcome.class,
				(outcome) -> assertThat(outcome.stores()).containsEntry("second", KeyRelease.REFUSED_IN_PROGRESS));
		WebEndpointResponse<Object> forced = section.delete(delete(true, "points", "4711"));
		assertThat(forced.getStatus()).isEqualTo(200);
		assertThat(forced.getBody()).isInstanceOfSatisfying(IdempotencyEndpoint.KeyReleaseOutcome.class,
				(outcome) -> assertThat(outcome.force()).isTrue());
		verify(second).release(key, true);
		given(second.release(key, false)).willReturn(KeyRelease.NOT_FOUND);
		assertThat(section.delete(delete(null, "points", "4711")).getStatus()).isEqualTo(404);
	}

	private static Request get(String namespace, String key) {
		return request(List.of(namespace, key));
	}

	private static Request delete(Boolean force, String namespace, String key) {
		return Request.of("keys", List.of(namespace, key), SecurityContext.NONE, "force", force);
	}

	private static Request request(List<String> path) {
		return new Request("keys", path, Map.of(), SecurityContext.NONE);
	}

	private static Map<String, IdempotencyStore> stores(String firstName, IdempotencyStore first, String secondName,
			IdempotencyStore second) {
		Map<String, IdempotencyStore> stores = new LinkedHashMap<>();
		stores.put(firstName, first);
		stores.put(secondName, second);
		return stores;
	}

	interface InspectableStore extends IdempotencyStore, IdempotencyKeyInspector {

	}

}
