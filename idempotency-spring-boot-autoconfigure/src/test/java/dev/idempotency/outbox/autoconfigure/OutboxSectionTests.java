package dev.idempotency.outbox.autoconfigure;

import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import dev.idempotency.autoconfigure.actuate.IdempotencyEndpoint;
import dev.idempotency.autoconfigure.actuate.IdempotencyEndpointSection.Request;
import dev.idempotency.outbox.OutboxAdmin;
import dev.idempotency.outbox.OutboxBacklog;
import dev.idempotency.outbox.OutboxMessage;
import dev.idempotency.outbox.OutboxStatus;
import org.junit.jupiter.api.Test;

import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.BDDMockito.given;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.verifyNoInteractions;

/**
 * {@link OutboxSection} alone, on a mocked {@link OutboxAdmin}: {@code outbox/dead} paged and
 * re-driven, and what it answers without an outbox or on another path.
 */
class OutboxSectionTests {

	private final OutboxAdmin admin = mock(OutboxAdmin.class);

	private final OutboxSection section = new OutboxSection(this.admin);

	@Test
	void deadMessagesArePagedWithoutTheirPayload() {
		OutboxMessage message = new OutboxMessage(7, "m-7", "kafka:orders", "4711", "{\"secret\":1}", Map.of(),
				OutboxStatus.DEAD, 3, Instant.EPOCH, null, "broken", null);
		given(this.admin.findDead(2, 5)).willReturn(List.of(message));
		given(this.admin.backlog()).willReturn(new OutboxBacklog.Snapshot(0, 11, null));
		WebEndpointResponse<Object> page = this.section.read(request(List.of("dead"), "page", 2, "size", 5));
		assertThat(page.getStatus()).isEqualTo(200);
		assertThat(page.getBody()).isEqualTo(new IdempotencyEndpoint.DeadPage(2, 5, 11, List.of(
				new IdempotencyEndpoint.DeadMessage(7, "m-7", "kafka:orders", "4711", 3, Instant.EPOCH, "broken"))));
	}

	@Test
	void thePageDefaultsToTheFirstItsSizeIsBoundedAndANegativePageIsABadRequest() {
		given(this.admin.backlog()).willReturn(new OutboxBacklog.Snapshot(0, 0, null));
		this.section.read(request(List.of("dead")));
		verify(this.admin).findDead(0, IdempotencyEndpoint.DEFAULT_PAGE_SIZE);
		this.section.read(request(List.of("dead"), "size", 10_000));
		verify(this.admin).findDead(0, IdempotencyEndpoint.MAX_PAGE_SIZE);
		assertThat(this.section.read(request(List.of("dead"), "page", -1)).getStatus()).isEqualTo(400);
	}

	@Test
	void everyDeadMessageOrOneIsRedriven() {
		given(this.admin.redriveDead()).willReturn(4);
		given(this.admin.redrive("m-1")).willReturn(true);
		assertThat(this.section.write(request(List.of("dead"))).getBody())
			.isEqualTo(new IdempotencyEndpoint.Redriven(4));
		assertThat(this.section.write(request(List.of("dead", "m-1"))).getBody())
			.isEqualTo(new IdempotencyEndpoint.Redriven(1));
		WebEndpointResponse<Object> unknown = this.section.write(request(List.of("dead", "m-2")));
		assertThat(unknown.getStatus()).isEqualTo(404);
		assertThat(unknown.getBody()).isEqualTo(new IdempotencyEndpoint.Problem("No dead outbox message 'm-2'"));
		assertThat(this.section.write(request(List.of("dead", ""))).getStatus()).isEqualTo(400);
	}

	@Test
	void theOverviewGetsTheBacklogOfTheOutbox() {
		given(this.admin.backlog()).willReturn(new OutboxBacklog.Snapshot(3, 2, Duration.ofSeconds(40)));
		assertThat(this.section.backlog()).isEqualTo(new IdempotencyEndpoint.Backlog(3, 2, Duration.ofSeconds(40)));
	}

	@Test
	void withoutAnOutboxEveryRequestSaysSo() {
		OutboxSection without = new OutboxSection(null);
		IdempotencyEndpoint.Problem notEnabled = new IdempotencyEndpoint.Problem(
				"The outbox is not enabled (idempotency.outbox.enabled)");
		assertThat(without.backlog()).isNull();
		assertThat(without.read(request(List.of("dead"))).getBody()).isEqualTo(notEnabled);
		assertThat(without.write(request(List.of("dead"))).getBody()).isEqualTo(notEnabled);
		assertThat(without.write(request(List.of("dead", "m-1"))).getBody()).isEqualTo(notEnabled);
	}

	@Test
	void otherPathsAndMethodsAreNotFound() {
		assertThat(this.section.read(request(List.of())).getStatus()).isEqualTo(404);
		assertThat(this.section.read(request(List.of("alive"))).getStatus()).isEqualTo(404);
		assertThat(this.section.read(request(List.of("dead", "m-1"))).getStatus()).isEqualTo(404);
		assertThat(this.section.write(request(List.of("alive"))).getStatus()).isEqualTo(404);
		assertThat(this.section.delete(request(List.of("dead", "m-1"))).getStatus()).isEqualTo(404);
		verifyNoInteractions(this.admin);
	}

	private static Request request(List<String> path, Object... namesAndValues) {
		Map<String, Object> parameters = new LinkedHashMap<>();
		for (int i = 0; i < namesAndValues.length; i += 2) {
			parameters.put((String) namesAndValues[i], namesAndValues[i + 1]);
		}
		return new Request("outbox", path, parameters, SecurityContext.NONE);
	}

}
