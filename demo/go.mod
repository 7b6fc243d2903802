module github.com/example/ledgerly

go 1.22

require (
	github.com/redis/go-redis/v9 v9.5.1
	github.com/jackc/pgx/v5 v5.5.5
)
