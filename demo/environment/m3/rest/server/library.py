from fastapi import APIRouter, HTTPException, Query, Request
import sqlite3

app = APIRouter()

try:
    conn = sqlite3.connect('db/library/library.sqlite')
    cursor = conn.cursor()
except Exception as e:
    print(f"Warning: could not connect to database: {e}")
    conn = None
    cursor = None

# Endpoint to count the books of one genre
@app.get("/v1/library/book_count_by_genre", operation_id="get_book_count_by_genre", summary="Returns how many titles of the given genre the library network holds across all of its branches.")
async def get_book_count_by_genre(genre: str = Query(..., description="Genre of the book, e.g. Mystery or Poetry")):
    cursor.execute("SELECT COUNT(book_id) FROM books WHERE genre = ?", (genre,))
    result = cursor.fetchone()
    if not result:
        return {"count": []}
    return {"count": result[0]}

# Endpoint to list the titles written by one author
@app.get("/v1/library/titles_by_author", operation_id="get_titles_by_author", summary="Lists the titles written by the author with the given first and last name, oldest publication first.")
async def get_titles_by_author(first_name: str = Query(..., description="First name of the author"), last_name: str = Query(..., description="Last name of the author")):
    cursor.execute("SELECT T2.title FROM authors AS T1 INNER JOIN books AS T2 ON T1.author_id = T2.author_id WHERE T1.first_name = ? AND T1.last_name = ? ORDER BY T2.published_year, T2.title", (first_name, last_name))
    result = cursor.fetchall()
    if not result:
        return {"titles": []}
    return {"titles": [row[0] for row in result]}

# Endpoint to get the most borrowed books
@app.get("/v1/library/most_borrowed_books", operation_id="get_most_borrowed_books", summary="Ranks books by the number of loans recorded for them and returns the most borrowed titles together with their loan counts. The number of titles returned is controlled by the limit parameter.")
async def get_most_borrowed_books(limit: int = Query(5, description="Maximum number of books to return")):
    cursor.execute("SELECT T1.title, COUNT(T2.loan_id) AS loans FROM books AS T1 INNER JOIN loans AS T2 ON T1.book_id = T2.book_id GROUP BY T1.book_id ORDER BY loans DESC, T1.title LIMIT ?", (limit,))
    result = cursor.fetchall()
    if not result:
        return {"books": []}
    return {"books": [{"title": row[0], "loans": row[1]} for row in result]}

@app.get("/v1/library/book_by_isbn", operation_id="get_book_by_isbn", summary="Looks up a book by its 13-digit ISBN and returns its title, publisher, year of publication, page count and list price.")
async def get_book_by_isbn(isbn: str = Query(..., description="ISBN-13 of the book, digits only")):
    cursor.execute("SELECT title, publisher, published_year, pages, price FROM books WHERE isbn = ?", (isbn,))
    result = cursor.fetchone()
    if not result:
        return {"book": []}
    return {"book": result}

# Endpoint to get the author of a book
@app.get("/v1/library/author_of_title", operation_id="get_author_of_title", summary="Returns the first name, last name and country of the author who wrote the book with the given title. The country may be null when it is not recorded.")
async def get_author_of_title(title: str = Query(..., description="Exact title of the book")):
    cursor.execute("SELECT T1.first_name, T1.last_name, T1.country FROM authors AS T1 INNER JOIN books AS T2 ON T1.author_id = T2.author_id WHERE T2.title = ?", (title,))
    result = cursor.fetchone()
    if not result:
        return {"author": []}
    return {"first_name": result[0], "last_name": result[1], "country": result[2]}

# Endpoint to get the average rating of a publisher's books
@app.get("/v1/library/average_rating_by_publisher", operation_id="get_average_rating_by_publisher", summary="Calculates the average reader rating of the books released by the specified publisher, ignoring books that have not been rated yet.")
async def get_average_rating_by_publisher(publisher: str = Query(..., description="Name of the publisher")):
    cursor.execute("SELECT AVG(rating) FROM books WHERE publisher = ?", (publisher,))
    result = cursor.fetchone()
    if not result:
        return {"average_rating": []}
    return {"average_rating": result[0]}

# Endpoint to list overdue loans at a branch
@app.get("/v1/library/overdue_loans_by_branch", operation_id="get_overdue_loans_by_branch", summary="Lists the loans of a branch that had not been returned by the reference date although their due date had already passed. Each entry contains the loan id, the book title and the due date.")
async def get_overdue_loans_by_branch(as_of_date: str = Query(..., description="Reference date in YYYY-MM-DD format"), branch_name: str = Query(..., description="Name of the branch")):
    cursor.execute("SELECT T1.loan_id, T2.title, T1.due_date FROM loans AS T1 INNER JOIN books AS T2 ON T1.book_id = T2.book_id INNER JOIN branches AS T3 ON T1.branch_id = T3.branch_id WHERE T3.name = ? AND T1.due_date < ? AND (T1.return_date IS NULL OR T1.return_date > ?) ORDER BY T1.due_date, T1.loan_id", (branch_name, as_of_date, as_of_date))
    result = cursor.fetchall()
    if not result:
        return {"loans": []}
    return {"loans": result}

# Endpoint to get the late fees paid by a member
@app.get("/v1/library/late_fees_by_member", operation_id="get_late_fees_by_member", summary="Returns the total of the late fees charged to the member with the given id; members who never returned anything late get 0.0.")
async def get_late_fees_by_member(member_id: int = Query(..., description="Identifier of the member")):
    cursor.execute("SELECT TOTAL(late_fee) FROM loans WHERE member_id = ?", (member_id,))
    result = cursor.fetchone()
    if not result:
        return {"total_late_fees": []}
    return {"total_late_fees": result[0]}

# Endpoint to get the share of late returns in a year
@app.get("/v1/library/late_return_percentage_by_year", operation_id="get_late_return_percentage_by_year", summary="Computes the percentage of loans started in the given year that came back after their due date. Loans that are still out are counted as not late.")
async def get_late_return_percentage_by_year(year: str = Query(..., description="Four-digit year of the loan date")):
    cursor.execute("SELECT CAST(SUM(IIF(return_date > due_date, 1, 0)) AS REAL) * 100 / COUNT(loan_id) FROM loans WHERE STRFTIME('%Y', loan_date) = ?", (year,))
    result = cursor.fetchone()
    if not result:
        return {"percentage": []}
    return {"percentage": result[0]}

# Endpoint to count loans per month
@app.get("/v1/library/monthly_loan_counts", operation_id="get_monthly_loan_counts", summary="Breaks the loans of one calendar year down by month and returns the number of loans started in each month.")
async def get_monthly_loan_counts(year: str = Query(..., description="Four-digit year")):
    cursor.execute("SELECT STRFTIME('%m', loan_date) AS month, COUNT(loan_id) FROM loans WHERE STRFTIME('%Y', loan_date) = ? GROUP BY month ORDER BY month", (year,))
    result = cursor.fetchall()
    if not result:
        return {"months": []}
    return {"months": [{"month": row[0], "loans": row[1]} for row in result]}

# Endpoint to search titles by keyword
@app.get("/v1/library/titles_by_keyword", operation_id="get_titles_by_keyword", summary="Searches the catalogue for titles containing the given word (case-insensitive for ASCII letters) and returns them in alphabetical order, up to the requested number of results.")
async def get_titles_by_keyword(keyword: str = Query(..., description="Word or fragment to look for in the title"), limit: int = Query(10, description="Maximum number of titles to return")):
    cursor.execute("SELECT title FROM books WHERE title LIKE '%' || ? || '%' ORDER BY title LIMIT ?", (keyword, limit))
    result = cursor.fetchall()
    if not result:
        return {"titles": []}
    return {"titles": [row[0] for row in result]}

# Endpoint to find books in a price range
@app.get("/v1/library/books_in_price_range", operation_id="get_books_in_price_range", summary="Finds books of a genre whose list price lies between the given minimum and maximum, cheapest first.")
async def get_books_in_price_range(min_price: float = Query(..., description="Lowest list price"), max_price: float = Query(..., description="Highest list price"), genre: str = Query(..., description="Genre of the book")):
    cursor.execute("SELECT title, price FROM books WHERE genre = ? AND price BETWEEN ? AND ? ORDER BY price, title", (genre, min_price, max_price))
    result = cursor.fetchall()
    if not result:
        return {"books": []}
    return {"books": [{"title": row[0], "price": row[1]} for row in result]}

# Endpoint to list the genres held by a branch
@app.get("/v1/library/genres_by_branch", operation_id="get_genres_by_branch", summary="Returns a comma-separated list of the distinct genres shelved at the named branch.")
async def get_genres_by_branch(branch_name: str = Query(..., description="Name of the branch")):
    cursor.execute("SELECT GROUP_CONCAT(DISTINCT T1.genre) FROM books AS T1 INNER JOIN branches AS T2 ON T1.branch_id = T2.branch_id WHERE T2.name = ?", (branch_name,))
    result = cursor.fetchone()
    if not result:
        return {"genres": []}
    return {"genres": result[0]}

# Endpoint to rank the most active members of a branch
@app.get("/v1/library/top_members_by_branch", operation_id="get_top_members_by_branch", summary="Ranks the members registered at a branch by how many loans they have made and returns the top of the ranking; members with equal loan counts share a rank.")
async def get_top_members_by_branch(branch_id: int = Query(..., description="Identifier of the home branch"), limit: int = Query(5, description="Number of members to return")):
    cursor.execute("SELECT RANK() OVER (ORDER BY COUNT(T2.loan_id) DESC) AS rnk, T1.first_name, T1.last_name, COUNT(T2.loan_id) FROM members AS T1 INNER JOIN loans AS T2 ON T1.member_id = T2.member_id WHERE T1.home_branch_id = ? GROUP BY T1.member_id ORDER BY rnk, T1.member_id LIMIT ?", (branch_id, limit))
    result = cursor.fetchall()
    if not result:
        return {"members": []}
    return {"members": [{"rank": row[0], "first_name": row[1], "last_name": row[2], "loans": row[3]} for row in result]}

# Endpoint to list authors from a country
@app.get("/v1/library/authors_by_country", operation_id="get_authors_by_country", summary="Lists the full names of the authors from the given country. When the country is omitted, the authors whose country is unknown are listed instead.")
async def get_authors_by_country(country: str = Query(None, description="Country of the author; leave out for authors with no recorded country")):
    cursor.execute("SELECT first_name || ' ' || last_name FROM authors WHERE country IS ? ORDER BY last_name, first_name", (country,))
    result = cursor.fetchall()
    if not result:
        return {"authors": []}
    return {"authors": [row[0] for row in result]}

# Endpoint to get first-year activity of new members
@app.get("/v1/library/new_member_activity", operation_id="get_new_member_activity", summary="For members who joined in the given year, returns how many loans they made during that same year and how many distinct members those loans came from.")
async def get_new_member_activity(year: str = Query(..., description="Four-digit year of joining")):
    cursor.execute("SELECT COUNT(T2.loan_id), COUNT(DISTINCT T1.member_id) FROM members AS T1 INNER JOIN loans AS T2 ON T1.member_id = T2.member_id WHERE STRFTIME('%Y', T1.joined) = ? AND STRFTIME('%Y', T2.loan_date) = ?", (year, year))
    result = cursor.fetchone()
    if not result:
        return {"activity": []}
    return {"loans": result[0], "members": result[1]}

# Endpoint to summarise a branch
@app.get("/v1/library/branch_summary", operation_id="get_branch_summary", summary="Gives three headline figures for a branch: the number of loans it issued, the number of members registered there and the number of books on its shelves.")
async def get_branch_summary(branch_id: int = Query(..., description="Identifier of the branch")):
    cursor.execute("SELECT 'loans', COUNT(loan_id) FROM loans WHERE branch_id = ? UNION ALL SELECT 'members', COUNT(member_id) FROM members WHERE home_branch_id = ? UNION ALL SELECT 'books', COUNT(book_id) FROM books WHERE branch_id = ?", (branch_id, branch_id, branch_id))
    result = cursor.fetchall()
    if not result:
        return {"summary": []}
    return {"summary": [{"metric": row[0], "value": row[1]} for row in result]}

# Endpoint to get the oldest branch
@app.get("/v1/library/oldest_branch", operation_id="get_oldest_branch", summary="Returns the name, city and opening date of the branch that has been open the longest.")
async def get_oldest_branch():
    cursor.execute("SELECT name, city, opened FROM branches ORDER BY opened LIMIT 1")
    result = cursor.fetchone()
    if not result:
        return {"branch": []}
    return {"name": result[0], "city": result[1], "opened": result[2]}

@app.get("/v1/library/long_book_count", operation_id="get_long_book_count", summary="")
async def get_long_book_count(min_pages: int = Query(..., description="Minimum number of pages"), genre: str = Query(..., description="Genre of the book")):
    cursor.execute("SELECT COUNT(book_id) FROM books WHERE genre = ? AND pages >= ?", (genre, min_pages))
    result = cursor.fetchone()
    if not result:
        return {"count": []}
    return {"count": result[0]}

# Endpoint to get the average loan length for a genre
@app.get("/v1/library/average_loan_days_by_genre", operation_id="get_average_loan_days_by_genre", summary="Calculates the average number of days that returned books of the given genre stayed out on loan.")
async def get_average_loan_days_by_genre(genre: str = Query(..., description="Genre of the book")):
    cursor.execute("SELECT AVG(JULIANDAY(T1.return_date) - JULIANDAY(T1.loan_date)) FROM loans AS T1 INNER JOIN books AS T2 ON T1.book_id = T2.book_id WHERE T2.genre = ? AND T1.return_date IS NOT NULL", (genre,))
    result = cursor.fetchone()
    if not result:
        return {"average_days": []}
    return {"average_days": result[0]}

# Endpoint to list members without an e-mail address
@app.get("/v1/library/members_without_email", operation_id="get_members_without_email", summary="Lists members of the given membership tier who have no e-mail address on file, so that branches can contact them by other means.")
async def get_members_without_email(membership: str = Query(..., description="Membership tier: standard, student, senior or staff"), limit: int = Query(10, description="Maximum number of members to return")):
    cursor.execute("SELECT member_id, first_name, last_name, joined FROM members WHERE membership = ? AND email IS NULL ORDER BY joined LIMIT ?", (membership, limit))
    result = cursor.fetchall()
    if not result:
        return {"members": []}
    return {"members": result}

api_calls = [
    "/v1/library/book_count_by_genre?genre=Mystery",
    "/v1/library/titles_by_author?first_name=Zo%C3%AB&last_name=Nov%C3%A1k",
    "/v1/library/most_borrowed_books?limit=3",
    "/v1/library/book_by_isbn?isbn=9787893894701",
    "/v1/library/author_of_title?title=The%20Salt%20Comet",
    "/v1/library/average_rating_by_publisher?publisher=%C3%9Cn%C3%AFcode%20Press",
    "/v1/library/overdue_loans_by_branch?as_of_date=2024-06-30&branch_name=Mile-End",
    "/v1/library/late_fees_by_member?member_id=4",
    "/v1/library/late_return_percentage_by_year?year=2023",
    "/v1/library/monthly_loan_counts?year=2024",
    "/v1/library/titles_by_keyword?keyword=harbour&limit=5",
    "/v1/library/books_in_price_range?min_price=10.5&max_price=15&genre=Poetry",
    "/v1/library/genres_by_branch?branch_name=Saint-Roch",
    "/v1/library/top_members_by_branch?branch_id=3&limit=5",
    "/v1/library/authors_by_country?country=Iceland",
    "/v1/library/new_member_activity?year=2023",
    "/v1/library/branch_summary?branch_id=1",
    "/v1/library/oldest_branch",
    "/v1/library/long_book_count?min_pages=500&genre=Fantasy",
    "/v1/library/average_loan_days_by_genre?genre=Travel",
    "/v1/library/members_without_email?membership=student&limit=5"
]
