package dev.idempotency.autoconfigure.actuate;

import java.time.Duration;
import java.time.Instant;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiFunction;

import dev.idempotency.autoconfigure.actuate.IdempotencyEndpointSection.Request;
import dev.idempotency.core.IdempotencyKeyInspector;
import dev.idempotency.core.KeyRecord;
import dev.idempotency.core.KeyRelease;
import dev.idempotency.core.ParkedKey;
import dev.idempotency.core.ParkedKeys;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.Access;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.annotation.DeleteOperation;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.Selector.Match;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;

/**
 * The {@code idempotency} Actuator endpoint, on top of the starter's Java APIs
 * ({@link IdempotencyKeyInspector} of the stores, the outbox's {@code OutboxAdmin}, {@link ParkedKeys},
 * {@link DeadLetterSource}):
 * <ul>
 * <li>{@code GET /actuator/idempotency}: the stores, the outbox's backlog, whether parked keys can be
 * handled, the transports whose dead letters can be re-driven;</li>
 * <li>{@code GET|DELETE /actuator/idempotency/keys/{namespace}/{key}}: look up, release a key
 * ({@code ?force=true} releases a claim whose lease has not ended);</li>
 * <li>{@code GET /actuator/idempotency/outbox/dead?page=&size=}: dead outbox messages, paged;
 * {@code POST /actuator/idempotency/outbox/dead[/{messageId}]}: re-drive all or one;</li>
 * <li>{@code GET /actuator/idempotency/parked?namespace=&limit=}: parked keys;
 * {@code POST|DELETE /actuator/idempotency/parked/{namespace}/{key}}: mark completed, release;</li>
 * <li>{@code GET /actuator/idempotency/dead-letters/kafka/{topic}?limit=&fromOffset=&partition=}:
 * records of {@code <topic>.DLT}, what a re-drive would send (a dry run);
 * {@code POST} the same: re-drives them to {@code <topic>};
 * {@code GET|POST /actuator/idempotency/dead-letters/redis/{stream}?limit=&fromId=}: the same for
 * the entries of {@code <stream>.dlq}.</li>
 * </ul>
 * Path segments after the endpoint's id are selectors. Each concern is an
 * {@link IdempotencyEndpointSection}; the operations here declare the paths and parameters
 * Actuator maps, and route each request by its first segment to the section of that name. In the
 * operations that take the rest of the path, every remaining segment belongs to the last selector,
 * so a key containing {@code /} is written as is; other reserved characters are percent-encoded.
 * Reads are open by default ({@link Access#READ_ONLY}); writes need
 * {@code management.endpoint.idempotency.access=unrestricted}. Every write is logged at
 * {@code WARN} by this class's logger with the principal, when there is one.
 *
 * @since 0.2.0
 */
@Endpoint(id = "idempotency", defaultAccess = Access.READ_ONLY)
public class IdempotencyEndpoint {

	/** Page size of dead outbox messages, parked keys and dead letters when none is asked for. */
	public static final int DEFAULT_PAGE_SIZE = 20;

	/** The largest page or list the endpoint returns. */
	public static final int MAX_PAGE_SIZE = 200;

	private static final Log logger = LogFactory.getLog(IdempotencyEndpoint.class);

	private final Map<String, IdempotencyEndpointSection> sections;

	/**
	 * Creates the endpoint.
	 * @param sections the sections, each answering the paths that start with its
	 * {@link IdempotencyEndpointSection#name() name}; of two with the same name the first answers
	 * and the other is ignored (logged at {@code INFO})
	 */
	public IdempotencyEndpoint(List<? extends IdempotencyEndpointSection> sections) {
		Map<String, IdempotencyEndpointSection> byName = new LinkedHashMap<>();
		for (IdempotencyEndpointSection section : sections) {
			IdempotencyEndpointSection first = byName.putIfAbsent(section.name(), section);
			if (first != null) {
				// Expected when an application replaces a section of the starter's by one of its own
				logger.info("Actuator endpoint 'idempotency': section '" + section.name() + "' of "
						+ section.getClass().getName() + " is ignored; " + first.getClass().getName()
						+ " answers that path");
			}
		}
		this.sections = Collections.unmodifiableMap(byName);
	}

	/**
	 * {@code GET}: what the endpoint can act on.
	 * @return the stores, the outbox's backlog, whether parked keys are handled, and the transports
	 * whose dead letters can be re-driven
	 */
	@ReadOperation
	public Overview overview() {
		KeysSection keys = section(KeysSection.class);
		OutboxBacklogSection outbox = section(OutboxBacklogSection.class);
		ParkedKeysSection parked = section(ParkedKeysSection.class);
		DeadLettersSection deadLetters = section(DeadLettersSection.class);
		return new Overview((keys != null) ? keys.stores() : Map.of(), (outbox != null) ? outbox.backlog() : null,
				parked != null && parked.handlesParkedKeys(),
				(deadLetters != null) ? deadLetters.transports() : List.of());
	}

	/**
	 * {@code GET {section}?namespace=&limit=}, such as {@code parked}.
	 * @param section the section
	 * @param namespace only this namespace, or {@code null} for all
	 * @param limit the most entries, {@value #DEFAULT_PAGE_SIZE} if {@code null}, at most
	 * {@value #MAX_PAGE_SIZE}
	 * @return the section's answer; 404 for an unknown section
	 */
	@ReadOperation
	public WebEndpointResponse<Object> list(@Selector String section, @Nullable String namespace,
			@Nullable Integer limit) {
		return route(Request.of(section, List.of(), SecurityContext.NONE, "namespace", namespace, "limit", limit),
				IdempotencyEndpointSection::read);
	}

	/**
	 * {@code GET {section}/{kind}?page=&size=}, such as {@code outbox/dead}.
	 * @param section the section
	 * @param kind the selector after it
	 * @param page the page, from 0
	 * @param size the page's size, {@value #DEFAULT_PAGE_SIZE} if {@code null}, at most
	 * {@value #MAX_PAGE_SIZE}
	 * @return the section's answer; 404 for an unknown section
	 */
	@ReadOperation
	public WebEndpointResponse<Object> page(@Selector String section, @Selector String kind, @Nullable Integer page,
			@Nullable Integer size) {
		return route(Request.of(section, List.of(kind), SecurityContext.NONE, "page", page, "size", size),
				IdempotencyEndpointSection::read);
	}

	/**
	 * {@code GET {section}/{first}/{rest}?limit=&fromOffset=&partition=&fromId=}, such as
	 * {@code keys/{namespace}/{key}} or {@code dead-letters/{transport}/{name}}.
	 * @param section the section
	 * @param first the selector after it: the key's namespace, or the transport
	 * @param rest the remaining segments (a key containing {@code /} spans several)
	 * @param limit dead letters: the most, {@value #DEFAULT_PAGE_SIZE} if {@code null}, at most
	 * {@value #MAX_PAGE_SIZE}
	 * @param fromOffset Kafka dead letters: the first offset in each partition
	 * @param partition Kafka dead letters: only this partition of the dead-letter topic
	 * @param fromId Redis dead letters: the first record id
	 * @return the section's answer; 404 for an unknown section
	 */
	@ReadOperation
	public WebEndpointResponse<Object> lookup(@Selector String section, @Selector String first,
			@Selector(match = Match.ALL_REMAINING) String[] rest, @Nullable Integer limit, @Nullable Long fromOffset,
			@Nullable Integer partition, @Nullable String fromId) {
		return route(Request.of(section, List.of(first, String.join("/", rest)), SecurityContext.NONE, "limit", limit,
				"fromOffset", fromOffset, "partition", partition, "fromId", fromId), IdempotencyEndpointSection::read);
	}

	/**
	 * {@code POST {section}/{kind}}, such as {@code outbox/dead}.
	 * @param section the section
	 * @param kind the selector after it
	 * @param securityContext the caller, for the audit log
	 * @return the section's answer; 404 for an unknown section
	 */
	@WriteOperation
	public WebEndpointResponse<Object> redriveAll(@Selector String section, @Selector String kind,
			SecurityContext securityContext) {
		return route(Request.of(section, List.of(kind), securityContext), IdempotencyEndpointSection::write);
	}

	/**
	 * {@code POST {section}/{first}/{rest}?limit=&fromOffset=&partition=&fromId=}, such as
	 * {@code outbox/dead/{messageId}}, {@code parked/{namespace}/{key}} or
	 * {@code dead-letters/{transport}/{name}}.
	 * @param section the section
	 * @param first the selector after it
	 * @param rest the remaining segments
	 * @param limit dead letters: the most, {@value #DEFAULT_PAGE_SIZE} if {@code null}, at most
	 * {@value #MAX_PAGE_SIZE}
	 * @param fromOffset Kafka dead letters: the first offset in each partition
	 * @param partition Kafka dead letters: only this partition of the dead-letter topic
	 * @param fromId Redis dead letters: the first record id
	 * @param securityContext the caller, for the audit log
	 * @return the section's answer; 404 for an unknown section
	 */
	@WriteOperation
	public WebEndpointResponse<Object> act(@Selector String section, @Selector String first,
			@Selector(match = Match.ALL_REMAINING) String[] rest, @Nullable Integer limit, @Nullable Long fromOffset,
			@Nullable Integer partition, @Nullable String fromId, SecurityContext securityContext) {
		return route(Request.of(section, List.of(first, String.join("/", rest)), securityContext, "limit", limit,
				"fromOffset", fromOffset, "partition", partition, "fromId", fromId), IdempotencyEndpointSection::write);
	}

	/**
	 * {@code DELETE {section}/{namespace}/{key}?force=}, such as {@code keys/{namespace}/{key}} or
	 * {@code parked/{namespace}/{key}}.
	 * @param section the section
	 * @param namespace the key's namespace
	 * @param key the key's segments
	 * @param force whether to release a claim whose lease has not ended ({@code keys} only)
	 * @param securityContext the caller, for the audit log
	 * @return the section's answer; 404 for an unknown section
	 */
	@DeleteOperation
	public WebEndpointResponse<Object> release(@Selector String section, @Selector String namespace,
			@Selector(match = Match.ALL_REMAINING) String[] key, @Nullable Boolean force,
			SecurityContext securityContext) {
		return route(Request.of(section, List.of(namespace, String.join("/", key)), securityContext, "force", force),
				IdempotencyEndpointSection::delete);
	}

	private WebEndpointResponse<Object> route(Request request,
			BiFunction<IdempotencyEndpointSection, Request, WebEndpointResponse<Object>> operation) {
		IdempotencyEndpointSection section = this.sections.get(request.section());
		if (section == null) {
			return SectionResponses.notFound("No section '" + request.section() + "': try "
					+ String.join(", ", this.sections.keySet()));
		}
		return operation.apply(section, request);
	}

	private <T extends IdempotencyEndpointSection> @Nullable T section(Class<T> type) {
		for (IdempotencyEndpointSection section : this.sections.values()) {
			if (type.isInstance(section)) {
				return type.cast(section);
			}
		}
		return null;
	}

	/**
	 * What the endpoint can act on.
	 * @param stores the store beans by name
	 * @param outbox the outbox's backlog, or {@code null} without an outbox
	 * @param parkedKeys whether parked keys are handled
	 * @param deadLetters the transports whose dead letters can be re-driven ({@code kafka},
	 * {@code redis})
	 */
	public record Overview(Map<String, StoreDescriptor> stores, @Nullable Backlog outbox, boolean parkedKeys,
			List<String> deadLetters) {
	}

	/**
	 * The outbox's backlog in the overview, as its {@link OutboxBacklogSection} read it.
	 * @param pending rows committed and not yet sent (including rows being sent and rows waiting for
	 * their next attempt)
	 * @param dead rows that used up their attempts and wait to be re-driven
	 * @param oldestPendingAge age of the oldest pending row, {@code null} when none is pending
	 */
	public record Backlog(long pending, long dead, @Nullable Duration oldestPendingAge) {
	}

	/**
	 * A store bean.
	 * @param store the store's short name ({@code jdbc}, {@code redis}, ...)
	 * @param inspectable whether it looks up and releases keys
	 */
	public record StoreDescriptor(String store, boolean inspectable) {
	}

	/**
	 * A key's records.
	 * @param namespace the namespace asked for
	 * @param key the key asked for
	 * @param stores the key's record in each store bean (by name) that holds it
	 */
	public record KeyLookup(String namespace, String key, Map<String, KeyRecord> stores) {
	}

	/**
	 * The outcome of a key's release.
	 * @param namespace the namespace
	 * @param key the key
	 * @param force whether the release was forced
	 * @param stores the outcome in each store bean, by name
	 */
	public record KeyReleaseOutcome(String namespace, String key, boolean force, Map<String, KeyRelease> stores) {
	}

	/**
	 * A page of dead outbox messages.
	 * @param page the page, from 0
	 * @param size the page's size
	 * @param totalDead how many messages are dead
	 * @param messages the page's messages
	 */
	public record DeadPage(int page, int size, long totalDead, List<DeadMessage> messages) {
	}

	/**
	 * A dead outbox message, without its payload and headers (business content).
	 * @param id the row's sequence number
	 * @param messageId the message's id, to re-drive it by
	 * @param destination where it goes
	 * @param key the message key, or {@code null}
	 * @param attempts failed send attempts
	 * @param createdAt when the row was written
	 * @param lastError the last failure
	 */
	public record DeadMessage(long id, String messageId, String destination, @Nullable String key, int attempts,
			Instant createdAt, @Nullable String lastError) {
	}

	/**
	 * How many dead outbox messages were re-driven.
	 * @param redriven the count
	 */
	public record Redriven(int redriven) {
	}

	/**
	 * Parked keys.
	 * @param keys the keys, oldest claim first
	 */
	public record ParkedList(List<ParkedDescriptor> keys) {
	}

	/**
	 * A parked key.
	 * @param namespace the namespace (as stored)
	 * @param key the key (as stored: a long key is its digest)
	 * @param claimedAt when its last run claimed it
	 * @param attempts how many runs claimed it
	 */
	public record ParkedDescriptor(String namespace, String key, Instant claimedAt, int attempts) {

		static ParkedDescriptor of(ParkedKey parked) {
			return new ParkedDescriptor(parked.key().namespace(), parked.key().value(), parked.claimedAt(),
					parked.attempts());
		}

	}

	/**
	 * What became of a parked key.
	 * @param namespace the namespace
	 * @param key the key
	 * @param outcome {@code COMPLETED} or {@code RELEASED}
	 */
	public record ParkedOutcome(String namespace, String key, String outcome) {
	}

	/**
	 * Why an operation did nothing.
	 * @param message the reason
	 */
	public record Problem(String message) {
	}

}
