#!/usr/bin/env bash
# Makes sure the services the integration tests talk to answer on this machine:
#
#   PostgreSQL  127.0.0.1:5432  trust auth, user postgres (and root), database test
#   MariaDB     127.0.0.1:3306  user root, empty password, database test
#   Redis       127.0.0.1:6379  no auth
#   RabbitMQ    127.0.0.1:5672  user guest, password guest (RabbitMQ's default, local connections only)
#
# For each one that does not answer: start it if it is installed; if it is not installed and we are
# root on Debian/Ubuntu, install it with apt-get and configure it as above; otherwise stop with the
# exact commands to run. Then wait (bounded) until each answers and create the `test` databases.
#
# Usage:
#   scripts/services.sh               check / start / install (used by scripts/test.sh)
#   scripts/services.sh --configure   also (re)apply the auth settings above to servers that were
#                                     already installed (root only; edits pg_hba.conf, MariaDB users)
#   source scripts/services.sh && ensure_services    same, from another bash script
#
# Environment: SERVICES_WAIT_SECONDS (default 30) bounds the wait for each service.

SVC_HOST=127.0.0.1
SVC_PG_PORT=5432
SVC_MARIADB_PORT=3306
SVC_REDIS_PORT=6379
SVC_RABBIT_PORT=5672
SVC_WAIT_SECONDS="${SERVICES_WAIT_SECONDS:-30}"
SVC_MARKER="# added by idempotency-spring-boot-starter scripts/services.sh"

svc_log() { printf '[services] %s\n' "$*" >&2; }
svc_have() { command -v "$1" >/dev/null 2>&1; }
svc_is_root() { [[ "$(id -u)" == 0 ]]; }
svc_can_apt() { svc_is_root && svc_have apt-get && svc_have dpkg; }

# Runs a probe with a time limit when `timeout` exists (it does on any coreutils system).
svc_timeout() {
	if svc_have timeout; then timeout "$@"; else shift; "$@"; fi
}

svc_tcp_open() { # host port
	svc_timeout 3 bash -c "exec 3<>/dev/tcp/$1/$2" 2>/dev/null
}

# ---------------------------------------------------------------------------------------------
# PostgreSQL
# ---------------------------------------------------------------------------------------------

svc_pg_answers() {
	if svc_have pg_isready; then
		pg_isready -q -h "$SVC_HOST" -p "$SVC_PG_PORT" -t 3
	else
		svc_tcp_open "$SVC_HOST" "$SVC_PG_PORT"
	fi
}

svc_pg_installed() {
	svc_have pg_ctlcluster && compgen -G '/usr/lib/postgresql/*/bin/postgres' >/dev/null
}

svc_psql() { # user, then psql arguments; never prompts for a password
	local user="$1"
	shift
	PGCONNECT_TIMEOUT=5 psql -X -w -v ON_ERROR_STOP=1 -h "$SVC_HOST" -p "$SVC_PG_PORT" -U "$user" "$@"
}

# Prints the first of postgres/root that can log in without a password.
svc_pg_login_user() {
	local user
	for user in postgres root; do
		if svc_psql "$user" -d postgres -Atqc 'select 1' >/dev/null 2>&1; then
			echo "$user"
			return 0
		fi
	done
	return 1
}

# Prints "VERSION NAME" of the cluster on our port, creating one if there is none (root only).
svc_pg_cluster() {
	local cluster ver
	if svc_have pg_lsclusters; then
		cluster="$(pg_lsclusters -h 2>/dev/null | awk -v p="$SVC_PG_PORT" '$3 == p { print $1, $2; exit }')"
		if [[ -n "$cluster" ]]; then
			echo "$cluster"
			return 0
		fi
	fi
	svc_is_root || return 1
	ver="$(find /usr/lib/postgresql -mindepth 1 -maxdepth 1 -printf '%f\n' 2>/dev/null | sort -V | tail -n 1)"
	[[ -n "$ver" ]] || return 1
	svc_log "PostgreSQL: no cluster on port $SVC_PG_PORT; creating $ver/main"
	LANG=C.UTF-8 LC_ALL=C.UTF-8 pg_createcluster --port "$SVC_PG_PORT" "$ver" main >&2 || return 1
	echo "$ver main"
}

svc_pg_start() {
	local cluster
	if ! cluster="$(svc_pg_cluster)"; then
		svc_log "PostgreSQL: no cluster found for port $SVC_PG_PORT (see pg_lsclusters)"
		return 1
	fi
	svc_log "PostgreSQL: starting cluster $cluster"
	# shellcheck disable=SC2086 # "VERSION NAME" is meant to split into two arguments
	pg_ctlcluster --skip-systemctl-redirect $cluster start >&2
}

svc_pg_configure() {
	local cluster ver name hba
	svc_is_root || { svc_log "PostgreSQL: configuring needs root"; return 1; }
	cluster="$(svc_pg_cluster)" || return 1
	read -r ver name <<<"$cluster"
	hba="/etc/postgresql/$ver/$name/pg_hba.conf"
	if ! grep -qF "$SVC_MARKER" "$hba"; then
		svc_log "PostgreSQL: trusting local TCP connections in $hba"
		# First matching line wins, so these go on top.
		{
			echo "$SVC_MARKER (test machine: local TCP connections need no password)"
			echo "host    all             all             127.0.0.1/32            trust"
			echo "host    all             all             ::1/128                 trust"
			cat "$hba"
		} >"$hba.new" || return 1
		chown --reference="$hba" "$hba.new" || return 1
		chmod --reference="$hba" "$hba.new" || return 1
		mv "$hba.new" "$hba" || return 1
		pg_ctlcluster --skip-systemctl-redirect "$ver" "$name" reload >&2 || return 1
		sleep 1
	fi
	svc_psql postgres -d postgres -qc "DO \$\$ BEGIN
		IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'root') THEN CREATE ROLE root SUPERUSER LOGIN; END IF;
		END \$\$;" >&2 || return 1
	if [[ "$(svc_psql postgres -d postgres -Atqc "SELECT 1 FROM pg_database WHERE datname = 'root'")" != 1 ]]; then
		svc_psql postgres -d postgres -qc 'CREATE DATABASE root OWNER root' >&2
	fi
}

svc_pg_ensure_db() {
	local user
	if ! svc_have psql; then
		svc_log "PostgreSQL: no psql to check database test (apt-get install postgresql-client); assuming it exists"
		return 0
	fi
	if ! user="$(svc_pg_login_user)"; then
		svc_log "PostgreSQL answers on $SVC_HOST:$SVC_PG_PORT but neither postgres nor root can log in without a password."
		svc_pg_help_auth
		return 1
	fi
	if [[ "$(svc_psql "$user" -d postgres -Atqc "SELECT 1 FROM pg_database WHERE datname = 'test'")" != 1 ]]; then
		svc_log "PostgreSQL: creating database test"
		svc_psql "$user" -d postgres -qc 'CREATE DATABASE test' >&2
	fi
}

svc_pg_help_auth() {
	cat >&2 <<EOF
  Fix (as root), either:
    sudo scripts/services.sh --configure
  or by hand: put these lines at the top of /etc/postgresql/<version>/main/pg_hba.conf
      host all all 127.0.0.1/32 trust
      host all all ::1/128 trust
    then: sudo pg_ctlcluster --skip-systemctl-redirect <version> main reload
EOF
}

# ---------------------------------------------------------------------------------------------
# MariaDB
# ---------------------------------------------------------------------------------------------

svc_mariadb_client() { # prints the client command name
	if svc_have mariadb; then echo mariadb; elif svc_have mysql; then echo mysql; else return 1; fi
}

svc_mariadb_bin() {
	local bin
	for bin in /usr/sbin/mariadbd /usr/sbin/mysqld; do
		if [[ -x "$bin" ]]; then
			echo "$bin"
			return 0
		fi
	done
	return 1
}

svc_mariadb_installed() { svc_mariadb_bin >/dev/null; }

svc_mariadb_tcp() { # SQL client over TCP as root with an empty password
	local cli
	cli="$(svc_mariadb_client)" || return 1
	"$cli" --no-defaults --protocol=TCP -h "$SVC_HOST" -P "$SVC_MARIADB_PORT" -uroot --connect-timeout=5 "$@"
}

svc_mariadb_answers() {
	local admin
	if svc_have mariadb-admin; then admin=mariadb-admin; elif svc_have mysqladmin; then admin=mysqladmin; else admin=; fi
	if [[ -n "$admin" ]]; then
		# exits 0 whenever the server is up, even if the login is refused
		"$admin" --no-defaults --protocol=TCP -h "$SVC_HOST" -P "$SVC_MARIADB_PORT" -uroot \
			--connect-timeout=3 ping >/dev/null 2>&1
	else
		svc_tcp_open "$SVC_HOST" "$SVC_MARIADB_PORT"
	fi
}

svc_mariadb_start() {
	local bin datadir
	bin="$(svc_mariadb_bin)" || return 1
	if ! svc_is_root; then
		svc_log "MariaDB: starting the server needs root"
		return 1
	fi
	datadir="$("$bin" --print-defaults 2>/dev/null | tr ' ' '\n' | sed -n 's/^--datadir=//p' | tail -n 1)"
	datadir="${datadir:-/var/lib/mysql}"
	install -d -o mysql -g mysql /run/mysqld || return 1
	install -d -o mysql -g adm /var/log/mysql || return 1
	if [[ ! -d "$datadir/mysql" ]]; then
		svc_log "MariaDB: initialising $datadir"
		install -d -o mysql -g mysql "$datadir" || return 1
		if svc_have mariadb-install-db; then
			mariadb-install-db --user=mysql --datadir="$datadir" >&2 || return 1
		else
			mysql_install_db --user=mysql --datadir="$datadir" >&2 || return 1
		fi
	fi
	svc_log "MariaDB: starting $bin"
	if svc_have start-stop-daemon; then
		start-stop-daemon --start --oknodo --background --exec "$bin" -- --user=mysql
	else
		(setsid "$bin" --user=mysql </dev/null >/dev/null 2>&1 &)
	fi
}

svc_mariadb_configure() {
	local cli
	svc_is_root || { svc_log "MariaDB: configuring needs root"; return 1; }
	cli="$(svc_mariadb_client)" || { svc_log "MariaDB: no mariadb/mysql client"; return 1; }
	svc_log "MariaDB: root with an empty password over TCP; database test"
	# As OS root over the Unix socket (Debian's root@localhost uses unix_socket auth).
	# Keeps unix_socket as an alternative so `sudo mariadb` still works.
	"$cli" -uroot <<'SQL'
ALTER USER 'root'@'localhost' IDENTIFIED VIA unix_socket OR mysql_native_password USING PASSWORD('');
CREATE USER IF NOT EXISTS 'root'@'127.0.0.1' IDENTIFIED VIA mysql_native_password USING PASSWORD('');
GRANT ALL PRIVILEGES ON *.* TO 'root'@'127.0.0.1' WITH GRANT OPTION;
CREATE USER IF NOT EXISTS 'root'@'::1' IDENTIFIED VIA mysql_native_password USING PASSWORD('');
GRANT ALL PRIVILEGES ON *.* TO 'root'@'::1' WITH GRANT OPTION;
FLUSH PRIVILEGES;
CREATE DATABASE IF NOT EXISTS test;
SQL
}

svc_mariadb_ensure_db() {
	if ! svc_mariadb_client >/dev/null; then
		svc_log "MariaDB: no mariadb/mysql client to check database test (apt-get install mariadb-client); assuming it exists"
		return 0
	fi
	if ! svc_mariadb_tcp -e 'SELECT 1' >/dev/null 2>&1; then
		svc_log "MariaDB answers on $SVC_HOST:$SVC_MARIADB_PORT but root cannot log in over TCP with an empty password."
		svc_mariadb_help_auth
		return 1
	fi
	svc_mariadb_tcp -e 'CREATE DATABASE IF NOT EXISTS test' >&2
}

svc_mariadb_help_auth() {
	cat >&2 <<'EOF'
  Fix (as root), either:
    sudo scripts/services.sh --configure
  or by hand: sudo mariadb -uroot -e "ALTER USER 'root'@'localhost' IDENTIFIED VIA unix_socket OR mysql_native_password USING PASSWORD(''); CREATE USER IF NOT EXISTS 'root'@'127.0.0.1' IDENTIFIED BY ''; GRANT ALL PRIVILEGES ON *.* TO 'root'@'127.0.0.1' WITH GRANT OPTION; CREATE DATABASE IF NOT EXISTS test"
EOF
}

# ---------------------------------------------------------------------------------------------
# Redis
# ---------------------------------------------------------------------------------------------

svc_redis_answers() {
	local reply=
	if svc_have redis-cli; then
		reply="$(svc_timeout 5 redis-cli -h "$SVC_HOST" -p "$SVC_REDIS_PORT" ping 2>/dev/null)" || true
	else
		reply="$(svc_timeout 5 bash -c "exec 3<>/dev/tcp/$SVC_HOST/$SVC_REDIS_PORT && printf 'PING\r\n' >&3 && head -c 5 <&3" 2>/dev/null)" || true
		reply="${reply#+}"
	fi
	[[ "$reply" == PONG* ]]
}

svc_redis_installed() { svc_have redis-server; }

svc_redis_start() {
	local dir=/var/lib/redis logdir=/var/log/redis bind=127.0.0.1 major
	if ! svc_is_root; then
		# An unprivileged user can run its own throw-away Redis.
		dir="${TMPDIR:-/tmp}/redis-$(id -u)"
		logdir="$dir"
	fi
	mkdir -p "$dir" "$logdir"
	# The optional-address prefix '-' of `bind` exists since Redis 7.
	major="$(redis-server --version | sed -n 's/.* v=\([0-9]*\).*/\1/p')"
	if [[ "${major:-0}" -ge 7 ]]; then bind="127.0.0.1 -::1"; fi
	svc_log "Redis: starting redis-server on $SVC_HOST:$SVC_REDIS_PORT (nothing kept on disk)"
	# shellcheck disable=SC2086 # $bind holds one or two addresses
	redis-server --daemonize yes --bind $bind --port "$SVC_REDIS_PORT" --save "" --appendonly no \
		--dir "$dir" --logfile "$logdir/ci.log" >&2
}

# ---------------------------------------------------------------------------------------------
# RabbitMQ
# ---------------------------------------------------------------------------------------------

# Sends the AMQP 0-9-1 protocol header and expects a frame of type 1 (method: connection.start).
svc_rabbit_answers() {
	local reply
	reply="$(svc_timeout 5 bash -c "exec 3<>/dev/tcp/$SVC_HOST/$SVC_RABBIT_PORT && printf 'AMQP\\0\\0\\11\\1' >&3 && head -c 1 <&3 | od -An -tx1" 2>/dev/null)" || true
	[[ "${reply// /}" == 01 ]]
}

svc_rabbit_installed() { svc_have rabbitmq-server; }

svc_rabbit_start() {
	if ! svc_is_root; then
		svc_log "RabbitMQ: starting the server needs root"
		return 1
	fi
	svc_log "RabbitMQ: starting rabbitmq-server -detached"
	rabbitmq-server -detached >&2
}

svc_rabbit_ensure_user() {
	if ! svc_have rabbitmqctl || ! svc_is_root; then
		# rabbitmqctl needs root (the Erlang cookie); the tests say so if guest/guest is refused.
		return 0
	fi
	# The broker answers the protocol header before its applications are up: wait for them.
	svc_timeout "$SVC_WAIT_SECONDS" rabbitmqctl -q await_startup >/dev/null 2>&1 || true
	if ! rabbitmqctl -q authenticate_user guest guest >/dev/null 2>&1; then
		svc_log "RabbitMQ answers on $SVC_HOST:$SVC_RABBIT_PORT but user guest/guest cannot log in."
		svc_rabbit_help_auth
		return 1
	fi
}

svc_rabbit_help_auth() {
	cat >&2 <<'EOF'
  Fix (as root):
    sudo rabbitmqctl add_user guest guest   # or, if it exists: sudo rabbitmqctl change_password guest guest
    sudo rabbitmqctl set_permissions -p / guest '.*' '.*' '.*'
EOF
}

# ---------------------------------------------------------------------------------------------

svc_label() {
	case "$1" in
	pg) echo "PostgreSQL ($SVC_HOST:$SVC_PG_PORT)" ;;
	mariadb) echo "MariaDB ($SVC_HOST:$SVC_MARIADB_PORT)" ;;
	redis) echo "Redis ($SVC_HOST:$SVC_REDIS_PORT)" ;;
	rabbit) echo "RabbitMQ ($SVC_HOST:$SVC_RABBIT_PORT)" ;;
	esac
}

svc_package() {
	case "$1" in
	pg) echo postgresql ;;
	mariadb) echo mariadb-server ;;
	redis) echo redis-server ;;
	rabbit) echo rabbitmq-server ;;
	esac
}

svc_wait() { # service
	local deadline=$((SECONDS + SVC_WAIT_SECONDS))
	until "svc_$1_answers"; do
		if ((SECONDS >= deadline)); then
			svc_log "$(svc_label "$1") still does not answer after ${SVC_WAIT_SECONDS}s"
			case "$1" in
			pg) svc_log "  see /var/log/postgresql/ and pg_lsclusters" ;;
			mariadb) svc_log "  see /var/log/mysql/error.log or the *.err file in the data directory" ;;
			redis) svc_log "  see /var/log/redis/ci.log" ;;
			rabbit) svc_log "  see /var/log/rabbitmq/ and rabbitmq-diagnostics status" ;;
			esac
			return 1
		fi
		sleep 1
	done
}

svc_manual_help() { # packages...
	cat >&2 <<EOF
[services] Not installed: $*. Install, start and configure them as root on Debian/Ubuntu with:
    sudo scripts/services.sh
  which runs: apt-get update && apt-get install -y $*
  then starts them and sets: PostgreSQL trust auth for 127.0.0.1 + database test;
  MariaDB root with an empty password over TCP + database test; Redis on 127.0.0.1:6379;
  RabbitMQ on 127.0.0.1:5672 (user guest/guest).
EOF
}

ensure_services() {
	local configure=false arg svc pkgs=() installed_now=() failed=() down=()
	for arg in "$@"; do
		case "$arg" in
		--configure) configure=true ;;
		-h | --help)
			sed -n '2,/^$/s/^# \{0,1\}//p' "${BASH_SOURCE[0]}"
			return 0
			;;
		*)
			svc_log "unknown argument: $arg"
			return 2
			;;
		esac
	done

	# 1. What answers already, what is missing.
	for svc in pg mariadb redis rabbit; do
		if "svc_${svc}_answers"; then
			svc_log "$(svc_label "$svc") answers"
		else
			down+=("$svc")
			"svc_${svc}_installed" || pkgs+=("$(svc_package "$svc")")
		fi
	done
	# Clients needed to create the test databases.
	svc_have psql || [[ " ${pkgs[*]} " == *" postgresql "* ]] || pkgs+=(postgresql-client)
	svc_mariadb_client >/dev/null || [[ " ${pkgs[*]} " == *" mariadb-server "* ]] || pkgs+=(mariadb-client)

	# 2. Install what is missing.
	if ((${#pkgs[@]})); then
		if svc_can_apt; then
			svc_log "installing with apt-get: ${pkgs[*]}"
			export DEBIAN_FRONTEND=noninteractive
			apt-get update >&2 || svc_log "apt-get update failed; trying the install anyway"
			LANG=C.UTF-8 LC_ALL=C.UTF-8 apt-get install -y --no-install-recommends "${pkgs[@]}" >&2
			for svc in pg mariadb redis rabbit; do
				if [[ " ${pkgs[*]} " == *" $(svc_package "$svc") "* ]]; then installed_now+=("$svc"); fi
			done
		elif [[ " ${pkgs[*]} " == *"-server "* || " ${pkgs[*]} " == *" postgresql "* ]]; then
			svc_manual_help "${pkgs[@]}"
			return 1
		else
			svc_log "clients missing (${pkgs[*]}): cannot check the test databases; install them with apt-get"
		fi
	fi

	# 3. Start what is installed but down (a package's own install may have started it already).
	for svc in "${down[@]}"; do
		if "svc_${svc}_answers"; then continue; fi
		if ! "svc_${svc}_installed"; then
			failed+=("$svc")
			continue
		fi
		if ! "svc_${svc}_start"; then
			svc_log "$(svc_label "$svc"): start command failed"
			failed+=("$svc")
		fi
	done

	# 4. Wait until each answers.
	for svc in pg mariadb redis rabbit; do
		if [[ " ${failed[*]} " == *" $svc "* ]]; then continue; fi
		svc_wait "$svc" || failed+=("$svc")
	done

	# 5. Configure auth on servers installed just now (or when asked to).
	for svc in pg mariadb; do
		if [[ " ${failed[*]} " == *" $svc "* ]]; then continue; fi
		if [[ "$configure" == true || " ${installed_now[*]} " == *" $svc "* ]]; then
			"svc_${svc}_configure" || failed+=("$svc")
		fi
	done

	# 6. Databases `test`, RabbitMQ's guest user.
	for svc in pg mariadb; do
		if [[ " ${failed[*]} " == *" $svc "* ]]; then continue; fi
		"svc_${svc}_ensure_db" || failed+=("$svc")
	done
	if [[ " ${failed[*]} " != *" rabbit "* ]]; then
		svc_rabbit_ensure_user || failed+=(rabbit)
	fi

	if ((${#failed[@]})); then
		for svc in "${failed[@]}"; do
			svc_log "NOT READY: $(svc_label "$svc")"
		done
		if ! svc_is_root; then
			svc_log "starting or configuring these needs root: sudo scripts/services.sh"
		fi
		return 1
	fi
	svc_log "PostgreSQL, MariaDB, Redis and RabbitMQ are ready on $SVC_HOST"
}

if [[ "${BASH_SOURCE[0]}" == "$0" ]]; then
	set -euo pipefail
	ensure_services "$@"
fi
