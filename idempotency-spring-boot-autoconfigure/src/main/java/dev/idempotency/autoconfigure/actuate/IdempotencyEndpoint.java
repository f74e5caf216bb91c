package dev.idempotency.autoconfigure.actuate;

import java.security.Principal;
import java.time.Duration;
import java.time.Instant;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import dev.idempotency.core.IdempotencyKey;
import dev.idempotency.core.IdempotencyKeyInspector;
import dev.idempotency.core.IdempotencyStore;
import dev.idempotency.core.InvalidIdempotencyKeyException;
import dev.idempotency.core.KeyRecord;
import dev.idempotency.core.KeyRelease;
import dev.idempotency.core.OutboxBacklog;
import dev.idempotency.core.ParkedKey;
import dev.idempotency.core.ParkedKeys;
import dev.idempotency.outbox.OutboxAdmin;
import dev.idempotency.outbox.OutboxMessage;
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
 * ({@link IdempotencyKeyInspector} of the stores, {@link OutboxAdmin}, {@link ParkedKeys}):
 * <ul>
 * <li>{@code GET /actuator/idempotency}: the stores, the outbox's backlog, whether parked keys can be
 * handled;</li>
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
 * the entries of {@code <stream>.dlq} (see {@link DeadLetterSource}).</li>
 * </ul>
 * Path segments after the endpoint's id are selectors, so each operation dispatches on the first
 * (the section). The key is every remaining segment, so a key containing {@code /} is written as is;
 * other reserved characters are percent-encoded. Reads are open by default
 * ({@link Access#READ_ONLY}); writes need {@code management.endpoint.idempotency.access=unrestricted}.
 * Every write is logged at {@code WARN} with the principal, when there is one.
 *
 * @since 0.2.0
 */
@Endpoint(id = "idempotency", defaultAccess = Access.READ_ONLY)
public class IdempotencyEndpoint {

	/** Page size of dead outbox messages when none is asked for. */
	static final int DEFAULT_PAGE_SIZE = 20;

	/** The largest page or list the endpoint returns. */
	static final int MAX_PAGE_SIZE = 200;

	private static final int STATUS_CONFLICT = 409;

	private static final String DEAD_LETTERS = "dead-letters";

	private static final Log logger = LogFactory.getLog(IdempotencyEndpoint.class);

	private final Map<String, IdempotencyStore> stores;

	private final @Nullable OutboxAdmin outbox;

	private final @Nullable ParkedKeys parkedKeys;

	private final Duration retention;

	private final Map<String, DeadLetterSource> deadLetters;

	/**
	 * Creates the endpoint.
	 * @param stores the store beans by name; those that are {@link IdempotencyKeyInspector}s answer
	 * key lookups and releases
	 * @param outbox the outbox's operations, or {@code null} without an outbox
	 * @param parkedKeys the parked keys' operations, or {@code null} without them
	 * @param retention how long a parked key marked completed is remembered
	 */
	public IdempotencyEndpoint(Map<String, IdempotencyStore> stores, @Nullable OutboxAdmin outbox,
			@Nullable ParkedKeys parkedKeys, Duration retention) {
		this(stores, outbox, parkedKeys, retention, List.of());
	}

	/**
	 * Creates the endpoint.
	 * @param stores the store beans by name; those that are {@link IdempotencyKeyInspector}s answer
	 * key lookups and releases
	 * @param outbox the outbox's operations, or {@code null} without an outbox
	 * @param parkedKeys the parked keys' operations, or {@code null} without them
	 * @param retention how long a parked key marked completed is remembered
	 * @param deadLetters the transports whose dead letters can be listed and re-driven (the first of
	 * each {@link DeadLetterSource#transport()} wins)
	 */
	public IdempotencyEndpoint(Map<String, IdempotencyStore> stores, @Nullable OutboxAdmin outbox,
			@Nullable ParkedKeys parkedKeys, Duration retention, List<DeadLetterSource> deadLetters) {
		this.stores = Map.copyOf(stores);
		this.outbox = outbox;
		this.parkedKeys = parkedKeys;
		this.retention = retention;
		Map<String, DeadLetterSource> sources = new LinkedHashMap<>();
		deadLetters.forEach((source) -> sources.putIfAbsent(source.transport(), source));
		this.deadLetters = Collections.unmodifiableMap(sources);
	}

	/**
	 * What the endpoint can act on.
	 * @return the stores, the outbox's backlog and whether parked keys are handled
	 */
	@ReadOperation
	public Overview overview() {
		Map<String, StoreDescriptor> stores = new LinkedHashMap<>();
		this.stores.forEach((name, store) -> stores.put(name,
				new StoreDescriptor(store.name(), store instanceof IdempotencyKeyInspector)));
		return new Overview(stores, (this.outbox != null) ? this.outbox.backlog() : null, this.parkedKeys != null,
				List.copyOf(this.deadLetters.keySet()));
	}

	/**
	 * {@code GET parked?namespace=&limit=}: parked keys, oldest first.
	 * @param section {@code parked}
	 * @param namespace only this namespace, or {@code null} for all
	 * @param limit the most keys, {@value #DEFAULT_PAGE_SIZE} if {@code null}
	 * @return the keys; 404 for another section or without parked keys
	 */
	@ReadOperation
	public WebEndpointResponse<Object> list(@Selector String section, @Nullable String namespace,
			@Nullable Integer limit) {
		if (!"parked".equals(section)) {
			return notFound("No section '" + section + "': try keys/{namespace}/{key}, outbox/dead or parked");
		}
		ParkedKeys parked = this.parkedKeys;
		if (parked == null) {
			return notFound("The store handles no parked keys");
		}
		List<ParkedKey> keys = parked.parked(namespace, bounded(limit));
		return ok(new ParkedList(keys.stream().map(ParkedDescriptor::of).toList()));
	}

	/**
	 * {@code GET outbox/dead?page=&size=}: a page of dead outbox messages, oldest first.
	 * @param section {@code outbox}
	 * @param kind {@code dead}
	 * @param page the page, from 0
	 * @param size the page's size, {@value #DEFAULT_PAGE_SIZE} if {@code null}, at most
	 * {@value #MAX_PAGE_SIZE}
	 * @return the page; 404 for another path or without an outbox
	 */
	@ReadOperation
	public WebEndpointResponse<Object> page(@Selector String section, @Selector String kind, @Nullable Integer page,
			@Nullable Integer size) {
		OutboxAdmin admin = this.outbox;
		if (!"outbox".equals(section) || !"dead".equals(kind)) {
			return notFound("No section '" + section + "/" + kind + "': try outbox/dead");
		}
		if (admin == null) {
			return notFound("The outbox is not enabled (idempotency.outbox.enabled)");
		}
		int pageNumber = (page != null) ? page : 0;
		if (pageNumber < 0) {
			return badRequest("page must be at least 0");
		}
		int pageSize = bounded(size);
		List<DeadMessage> messages = admin.findDead(pageNumber, pageSize).stream().map(DeadMessage::of).toList();
		return ok(new DeadPage(pageNumber, pageSize, admin.backlog().dead(), messages));
	}

	/**
	 * {@code GET keys/{namespace}/{key}}: what the stores hold for a key;
	 * {@code GET dead-letters/{transport}/{name}?limit=&fromOffset=&partition=&fromId=}: dead letters
	 * of a topic or stream, what a re-drive would send.
	 * @param section {@code keys} or {@code dead-letters}
	 * @param first the key's namespace, or the transport ({@code kafka}, {@code redis})
	 * @param rest the key's segments (a key containing {@code /} spans several), or the topic or
	 * stream
	 * @param limit dead letters: the most, {@value #DEFAULT_PAGE_SIZE} if {@code null}, at most
	 * {@value #MAX_PAGE_SIZE}
	 * @param fromOffset Kafka dead letters: the first offset in each partition
	 * @param partition Kafka dead letters: only this partition of the dead-letter topic
	 * @param fromId Redis dead letters: the first record id
	 * @return the key's record in each store that holds it (404 if none does), or the dead letters
	 */
	@ReadOperation
	public WebEndpointResponse<Object> lookup(@Selector String section, @Selector String first,
			@Selector(match = Match.ALL_REMAINING) String[] rest, @Nullable Integer limit, @Nullable Long fromOffset,
			@Nullable Integer partition, @Nullable String fromId) {
		if (DEAD_LETTERS.equals(section)) {
			return deadLetters(first, rest, limit, fromOffset, partition, fromId, null);
		}
		return key(section, first, rest);
	}

	/**
	 * {@code GET keys/{namespace}/{key}}: what the stores hold for a key.
	 * @param section {@code keys}
	 * @param namespace the key's namespace
	 * @param key the key's segments (a key containing {@code /} spans several)
	 * @return the key's record in each store that holds it; 404 if none does
	 */
	public WebEndpointResponse<Object> key(String section, String namespace, String[] key) {
		if (!"keys".equals(section)) {
			return notFound("No section '" + section + "': try keys/{namespace}/{key} or dead-letters/{transport}/{name}");
		}
		IdempotencyKey idempotencyKey = idempotencyKey(namespace, key);
		if (idempotencyKey == null) {
			return badRequest("A namespace and a key are required");
		}
		Map<String, KeyRecord> found = new LinkedHashMap<>();
		inspectors().forEach((name, inspector) -> {
			KeyRecord record = inspector.inspect(idempotencyKey);
			if (record != null) {
				found.put(name, record);
			}
		});
		if (found.isEmpty()) {
			return notFound("No store holds key '" + idempotencyKey.value() + "' in namespace '" + namespace + "'");
		}
		return ok(new KeyLookup(namespace, idempotencyKey.value(), found));
	}

	/**
	 * {@code POST outbox/dead}: re-drives every dead outbox message.
	 * @param section {@code outbox}
	 * @param kind {@code dead}
	 * @param securityContext the caller, for the audit log
	 * @return how many messages were re-driven; 404 for another path or without an outbox
	 */
	@WriteOperation
	public WebEndpointResponse<Object> redriveAll(@Selector String section, @Selector String kind,
			SecurityContext securityContext) {
		OutboxAdmin admin = this.outbox;
		if (!"outbox".equals(section) || !"dead".equals(kind)) {
			return notFound("No section '" + section + "/" + kind + "': try outbox/dead");
		}
		if (admin == null) {
			return notFound("The outbox is not enabled (idempotency.outbox.enabled)");
		}
		int redriven = admin.redriveDead();
		audit(securityContext, "re-drive of every dead outbox message: " + redriven + " re-driven");
		return ok(new Redriven(redriven));
	}

	/**
	 * {@code POST outbox/dead/{messageId}}: re-drives one dead outbox message;
	 * {@code POST parked/{namespace}/{key}}: marks a parked key completed;
	 * {@code POST dead-letters/{transport}/{name}?limit=&fromOffset=&partition=&fromId=}: re-drives
	 * dead letters of a topic or stream.
	 * @param section {@code outbox}, {@code parked} or {@code dead-letters}
	 * @param first {@code dead}, the parked key's namespace, or the transport
	 * @param rest the message id, the parked key, or the topic or stream
	 * @param limit dead letters: the most, {@value #DEFAULT_PAGE_SIZE} if {@code null}, at most
	 * {@value #MAX_PAGE_SIZE}
	 * @param fromOffset Kafka dead letters: the first offset in each partition
	 * @param partition Kafka dead letters: only this partition of the dead-letter topic
	 * @param fromId Redis dead letters: the first record id
	 * @param securityContext the caller, for the audit log
	 * @return the outcome; 404 if there is no such dead message, parked key or transport
	 */
	@WriteOperation
	public WebEndpointResponse<Object> act(@Selector String section, @Selector String first,
			@Selector(match = Match.ALL_REMAINING) String[] rest, @Nullable Integer limit, @Nullable Long fromOffset,
			@Nullable Integer partition, @Nullable String fromId, SecurityContext securityContext) {
		if (DEAD_LETTERS.equals(section)) {
			return deadLetters(first, rest, limit, fromOffset, partition, fromId, securityContext);
		}
		return act(section, first, rest, securityContext);
	}

	/**
	 * {@code POST outbox/dead/{messageId}}: re-drives one dead outbox message;
	 * {@code POST parked/{namespace}/{key}}: marks a parked key completed.
	 * @param section {@code outbox} or {@code parked}
	 * @param first {@code dead}, or the parked key's namespace
	 * @param rest the message id, or the parked key
	 * @param securityContext the caller, for the audit log
	 * @return the outcome; 404 if there is no such dead message or parked key
	 */
	public WebEndpointResponse<Object> act(String section, String first, String[] rest,
			SecurityContext securityContext) {
		String last = String.join("/", rest);
		if ("outbox".equals(section) && "dead".equals(first)) {
			OutboxAdmin admin = this.outbox;
			if (admin == null) {
				return notFound("The outbox is not enabled (idempotency.outbox.enabled)");
			}
			if (last.isEmpty()) {
				return badRequest("A message id is required");
			}
			boolean redriven = admin.redrive(last);
			audit(securityContext, "re-drive of dead outbox message '" + last + "': "
					+ (redriven ? "re-driven" : "no such dead message"));
			return redriven ? ok(new Redriven(1)) : notFound("No dead outbox message '" + last + "'");
		}
		if ("parked".equals(section)) {
			ParkedKeys parked = this.parkedKeys;
			IdempotencyKey key = idempotencyKey(first, rest);
			if (parked == null) {
				return notFound("The store handles no parked keys");
			}
			if (key == null) {
				return badRequest("A namespace and a key are required");
			}
			boolean completed = parked.markCompleted(key, this.retention);
			audit(securityContext, "mark completed of parked key '" + key.value() + "' in namespace '"
					+ key.namespace() + "': " + (completed ? "completed" : "not parked"));
			return completed ? ok(new ParkedOutcome(key.namespace(), key.value(), "COMPLETED"))
					: notFound("Key '" + key.value() + "' in namespace '" + key.namespace() + "' is not parked");
		}
		return notFound("No section '" + section
				+ "': try outbox/dead/{messageId}, parked/{namespace}/{key} or dead-letters/{transport}/{name}");
	}

	/**
	 * Lists ({@code securityContext} {@code null}) or re-drives dead letters.
	 */
	private WebEndpointResponse<Object> deadLetters(String transport, String[] name, @Nullable Integer limit,
			@Nullable Long fromOffset, @Nullable Integer partition, @Nullable String fromId,
			@Nullable SecurityContext securityContext) {
		DeadLetterSource source = this.deadLetters.get(transport);
		if (source == null) {
			return notFound("No dead letters of '" + transport + "'"
					+ (this.deadLetters.isEmpty() ? "" : ": try " + String.join(", ", this.deadLetters.keySet()))
					+ " (Kafka needs a ConsumerFactory and a ProducerFactory, Redis the stream adapter)");
		}
		String destination = String.join("/", name);
		if (destination.isEmpty()) {
			return badRequest("A topic or stream is required: dead-letters/" + transport + "/{name}");
		}
		if (fromOffset != null && fromOffset < 0) {
			return badRequest("fromOffset must be at least 0");
		}
		DeadLetterSource.Query query = new DeadLetterSource.Query(bounded(limit), fromOffset, partition, fromId);
		if (securityContext == null) {
			try {
				return ok(source.preview(destination, query));
			}
			catch (IllegalArgumentException ex) {
				return badRequest(ex.getMessage());
			}
		}
		try {
			Object report = source.redrive(destination, query);
			audit(securityContext, "re-drive of " + transport + " dead letters of '" + destination + "' (" + query
					+ "): " + report);
			return ok(report);
		}
		catch (IllegalArgumentException ex) {
			return badRequest(ex.getMessage());
		}
		catch (RuntimeException ex) {
			audit(securityContext, "re-drive of " + transport + " dead letters of '" + destination + "' (" + query
					+ "): failed: " + ex);
			return new WebEndpointResponse<>(new Problem(String.valueOf(ex.getMessage())),
					WebEndpointResponse.STATUS_INTERNAL_SERVER_ERROR);
		}
	}

	/**
	 * {@code DELETE keys/{namespace}/{key}?force=}: releases a key in every store that holds it;
	 * {@code DELETE parked/{namespace}/{key}}: releases a parked key.
	 * @param section {@code keys} or {@code parked}
	 * @param namespace the key's namespace
	 * @param key the key's segments
	 * @param force whether to release a claim whose lease has not ended ({@code keys} only)
	 * @param securityContext the caller, for the audit log
	 * @return the outcome; 404 if no store holds the key, 409 if it was refused as in progress
	 */
	@DeleteOperation
	public WebEndpointResponse<Object> release(@Selector String section, @Selector String namespace,
			@Selector(match = Match.ALL_REMAINING) String[] key, @Nullable Boolean force,
			SecurityContext securityContext) {
		IdempotencyKey idempotencyKey = idempotencyKey(namespace, key);
		if ("keys".equals(section)) {
			if (idempotencyKey == null) {
				return badRequest("A namespace and a key are required");
			}
			return releaseKey(idempotencyKey, Boolean.TRUE.equals(force), securityContext);
		}
		if ("parked".equals(section)) {
			ParkedKeys parked = this.parkedKeys;
			if (parked == null) {
				return notFound("The store handles no parked keys");
			}
			if (idempotencyKey == null) {
				return badRequest("A namespace and a key are required");
			}
			boolean released = parked.release(idempotencyKey);
			audit(securityContext, "release of parked key '" + idempotencyKey.value() + "' in namespace '"
					+ namespace + "': " + (released ? "released" : "not parked"));
			return released ? ok(new ParkedOutcome(namespace, idempotencyKey.value(), "RELEASED"))
					: notFound("Key '" + idempotencyKey.value() + "' in namespace '" + namespace + "' is not parked");
		}
		return notFound("No section '" + section + "': try keys/{namespace}/{key} or parked/{namespace}/{key}");
	}

	private WebEndpointResponse<Object> releaseKey(IdempotencyKey key, boolean force,
			SecurityContext securityContext) {
		Map<String, KeyRelease> outcomes = new LinkedHashMap<>();
		inspectors().forEach((name, inspector) -> outcomes.put(name, inspector.release(key, force)));
		audit(securityContext, "release of key '" + key.value() + "' in namespace '" + key.namespace() + "'"
				+ (force ? " (forced)" : "") + ": " + outcomes);
		KeyReleaseOutcome body = new KeyReleaseOutcome(key.namespace(), key.value(), force, outcomes);
		if (outcomes.containsValue(KeyRelease.REFUSED_IN_PROGRESS)) {
			return new WebEndpointResponse<>(body, STATUS_CONFLICT);
		}
		if (!outcomes.containsValue(KeyRelease.RELEASED)) {
			return new WebEndpointResponse<>(body, WebEndpointResponse.STATUS_NOT_FOUND);
		}
		return ok(body);
	}

	private Map<String, IdempotencyKeyInspector> inspectors() {
		Map<String, IdempotencyKeyInspector> inspectors = new LinkedHashMap<>();
		this.stores.forEach((name, store) -> {
			if (store instanceof IdempotencyKeyInspector inspector) {
				inspectors.put(name, inspector);
			}
		});
		return inspectors;
	}

	private static @Nullable IdempotencyKey idempotencyKey(String namespace, String[] segments) {
		try {
			return new IdempotencyKey(namespace, String.join("/", segments));
		}
		catch (InvalidIdempotencyKeyException ex) {
			return null;
		}
	}

	private static int bounded(@Nullable Integer size) {
		if (size == null) {
			return DEFAULT_PAGE_SIZE;
		}
		return Math.max(1, Math.min(MAX_PAGE_SIZE, size));
	}

	private static void audit(SecurityContext securityContext, String operation) {
		Principal principal = securityContext.getPrincipal();
		logger.warn("Actuator endpoint 'idempotency', " + operation + " (by "
				+ ((principal != null) ? "'" + principal.getName() + "'" : "an unauthenticated caller") + ")");
	}

	private static WebEndpointResponse<Object> ok(Object body) {
		return new WebEndpointResponse<>(body, WebEndpointResponse.STATUS_OK);
	}

	private static WebEndpointResponse<Object> notFound(String message) {
		return new WebEndpointResponse<>(new Problem(message), WebEndpointResponse.STATUS_NOT_FOUND);
	}

	private static WebEndpointResponse<Object> badRequest(String message) {
		return new WebEndpointResponse<>(new Problem(message), WebEndpointResponse.STATUS_BAD_REQUEST);
	}

	/**
	 * What the endpoint can act on.
	 * @param stores the store beans by name
	 * @param outbox the outbox's backlog, or {@code null} without an outbox
	 * @param parkedKeys whether parked keys are handled
	 * @param deadLetters the transports whose dead letters can be re-driven ({@code kafka},
	 * {@code redis})
	 */
	public record Overview(Map<String, StoreDescriptor> stores, OutboxBacklog.@Nullable Snapshot outbox,
			boolean parkedKeys, List<String> deadLetters) {
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

		static DeadMessage of(OutboxMessage message) {
			return new DeadMessage(message.id(), message.messageId(), message.destination(), message.key(),
					message.attempts(), message.createdAt(), message.lastError());
		}

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
