package dev.idempotency.autoconfigure.actuate;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import dev.idempotency.autoconfigure.actuate.IdempotencyEndpointSection.Request;
import dev.idempotency.core.IdempotencyKey;
import dev.idempotency.core.ParkedKey;
import dev.idempotency.core.ParkedKeys;
import org.junit.jupiter.api.Test;

import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.BDDMockito.given;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.verifyNoInteractions;

/**
 * {@link ParkedKeysSection} alone, on mocked {@link ParkedKeys}: parked keys listed, marked
 * completed for the retention, released, and what it answers without parked keys or on another
 * path.
 */
class ParkedKeysSectionTests {

	private static final Duration RETENTION = Duration.ofDays(3);

	private static final IdempotencyKey KEY = new IdempotencyKey("payments", "pay/4711");

	private final ParkedKeys parkedKeys = mock(ParkedKeys.class);

	private final ParkedKeysSection section = new ParkedKeysSection(this.parkedKeys, RETENTION);

	@Test
	void parkedKeysAreListedByNamespaceWithABoundedLimit() {
		given(this.parkedKeys.parked("payments", 5)).willReturn(List.of(new ParkedKey(KEY, Instant.EPOCH, 2)));
		WebEndpointResponse<Object> listed = this.section
			.read(Request.of("parked", List.of(), SecurityContext.NONE, "namespace", "payments", "limit", 5));
		assertThat(listed.getStatus()).isEqualTo(200);
		assertThat(listed.getBody()).isEqualTo(new IdempotencyEndpoint.ParkedList(
				List.of(new IdempotencyEndpoint.ParkedDescriptor("payments", "pay/4711", Instant.EPOCH, 2))));
		this.section.read(request(List.of()));
		verify(this.parkedKeys).parked(null, IdempotencyEndpoint.DEFAULT_PAGE_SIZE);
	}

	@Test
	void aParkedKeyIsMarkedCompletedForTheRetention() {
		given(this.parkedKeys.markCompleted(KEY, RETENTION)).willReturn(true, false);
		assertThat(this.section.write(request(List.of("payments", "pay/4711"))).getBody())
			.isEqualTo(new IdempotencyEndpoint.ParkedOutcome("payments", "pay/4711", "COMPLETED"));
		WebEndpointResponse<Object> again = this.section.write(request(List.of("payments", "pay/4711")));
		assertThat(again.getStatus()).isEqualTo(404);
		assertThat(again.getBody()).isEqualTo(
				new IdempotencyEndpoint.Problem("Key 'pay/4711' in namespace 'payments' is not parked"));
	}

	@Test
	void aParkedKeyIsReleased() {
		given(this.parkedKeys.release(KEY)).willReturn(true, false);
		assertThat(this.section.delete(request(List.of("payments", "pay/4711"))).getBody())
			.isEqualTo(new IdempotencyEndpoint.ParkedOutcome("payments", "pay/4711", "RELEASED"));
		assertThat(this.section.delete(request(List.of("payments", "pay/4711"))).getStatus()).isEqualTo(404);
	}

	@Test
	void aBlankKeyIsABadRequest() {
		assertThat(this.section.write(request(List.of("payments", ""))).getStatus()).isEqualTo(400);
		assertThat(this.section.delete(request(List.of(" ", "pay-1"))).getStatus()).isEqualTo(400);
		verifyNoInteractions(this.parkedKeys);
	}

	@Test
	void withoutParkedKeysEveryRequestSaysSo() {
		ParkedKeysSection without = new ParkedKeysSection(null, RETENTION);
		IdempotencyEndpoint.Problem none = new IdempotencyEndpoint.Problem("The store handles no parked keys");
		assertThat(without.handlesParkedKeys()).isFalse();
		assertThat(this.section.handlesParkedKeys()).isTrue();
		assertThat(without.read(request(List.of())).getBody()).isEqualTo(none);
		assertThat(without.write(request(List.of("payments", "pay-1"))).getBody()).isEqualTo(none);
		assertThat(without.delete(request(List.of("payments", "pay-1"))).getBody()).isEqualTo(none);
	}

	@Test
	void otherPathsAreNotFound() {
		assertThat(this.section.read(request(List.of("payments"))).getStatus()).isEqualTo(404);
		assertThat(this.section.read(request(List.of("payments", "pay-1"))).getStatus()).isEqualTo(404);
		assertThat(this.section.write(request(List.of("payments"))).getStatus()).isEqualTo(404);
		verifyNoInteractions(this.parkedKeys);
	}

	private static Request request(List<String> path) {
		return Request.of("parked", path, SecurityContext.NONE);
	}

}
